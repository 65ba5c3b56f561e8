"""Metrics, each a small function of (predictions, gold). One metric lives in one place."""


def accuracy(pred, gold):
    """Share of ids whose predicted label equals the gold label; pred and gold map id -> label."""
    if not gold:
        return 0.0
    return sum(pred.get(i) == g for i, g in gold.items()) / len(gold)
