"""The overview paper's figure: scores with their 95% confidence intervals as a dot-and-whisker chart.

One panel per task and data set (stacked, each as tall as its number of entries), one row per system, best
at the top: a dot at the score, a whisker across its interval (entries without per-question values have no
whisker). Teams are filled dots, baselines hollow squares; per-cent measures (accuracy, EM) are drawn in per
cent. Written with matplotlib's object API (no pyplot state, no display needed) to .png (300 dpi) or .pdf,
with the date and software stamps left out so that the same input gives the same file."""
import os
import sys
from collections import namedtuple

from .errors import UserError
from .render import is_percent

FORMATS = (".png", ".pdf")
Point = namedtuple("Point", "label value low high kind")  # kind: team or baseline; low/high None: no interval
Panel = namedtuple("Panel", "title metric points")
STYLE = {"team": dict(marker="o", color="#1f4e79", markerfacecolor="#1f4e79"),
         "baseline": dict(marker="s", color="#b34700", markerfacecolor="white")}


def check_path(path):
    """Fail before any work when PATH cannot take a figure."""
    if os.path.splitext(path)[1].lower() not in FORMATS:
        raise UserError(f"{path}: the figure is written as {' or '.join(FORMATS)}; name the file so")


def figure(panels):
    """A matplotlib Figure of PANELS (Panel(title, metric, [Point])); empty panels are left out."""
    from matplotlib.figure import Figure
    panels = [p for p in panels if p.points]
    if not panels:
        raise UserError("nothing to plot: no scored entries")
    heights = [len(p.points) + 1.5 for p in panels]
    fig = Figure(figsize=(6.0, 0.28 * sum(heights) + 0.4), layout="constrained")
    axes = fig.subplots(len(panels), 1, squeeze=False, gridspec_kw={"height_ratios": heights})[:, 0]
    for ax, panel in zip(axes, panels):
        scale = 100 if is_percent(panel.metric) else 1
        points = sorted(panel.points, key=lambda p: (p.value, p.label))  # best at the top (last y)
        for kind in ("team", "baseline"):
            mine = [(y, p) for y, p in enumerate(points) if p.kind == kind]
            if not mine:
                continue
            ys = [y for y, _ in mine]
            xs = [scale * p.value for _, p in mine]
            err = [[scale * (p.value - p.low) if p.low is not None else 0 for _, p in mine],
                   [scale * (p.high - p.value) if p.high is not None else 0 for _, p in mine]]
            ax.errorbar(xs, ys, xerr=err, linestyle="none", markersize=5, elinewidth=1.2, capsize=0,
                        label=f"{kind}s", **STYLE[kind])
        ax.set_yticks(range(len(points)), [p.label for p in points], fontsize=7)
        ax.set_ylim(-0.75, len(points) - 0.25)
        ax.set_title(panel.title, fontsize=8, loc="left")
        ax.set_xlabel(f"{panel.metric} (%)" if scale == 100 else panel.metric, fontsize=7)
        ax.tick_params(axis="x", labelsize=7)
        ax.grid(axis="x", linewidth=0.4, alpha=0.5)
        ax.spines[["top", "right"]].set_visible(False)
    kinds = {p.kind for panel in panels for p in panel.points}
    if len(kinds) > 1:  # below the panels, where it hides no whisker
        handles = {h.get_label(): h for ax in axes for h in ax.get_legend_handles_labels()[0]}
        fig.legend(list(handles.values()), list(handles), loc="outside lower center", ncols=2, fontsize=7,
                   frameon=False)
    return fig


def save(panels, path):
    """Draw PANELS into PATH (.png or .pdf, written atomically); returns the Figure."""
    from .fileio import atomic_write
    check_path(path)
    fig = figure(panels)
    ext = os.path.splitext(path)[1].lower()
    metadata = {"CreationDate": None, "Producer": None, "Creator": None} if ext == ".pdf" else {"Software": None}
    with atomic_write(path, "wb") as f:
        fig.savefig(f, format=ext[1:], dpi=300, metadata=metadata)
    print(f"{path}: {count_points(fig)} entries in {len(fig.axes)} panels", file=sys.stderr)
    return fig


def count_points(fig):
    """The dots drawn in a Figure (what the tests check)."""
    return sum(len(line.get_xdata()) for ax in fig.axes for line in ax.lines
               if line.get_marker() not in ("", "None", None))
