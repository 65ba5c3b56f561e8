"""Indexes: `layout` (folders, fingerprints, manifests, the indexed text: all that retrievers need),
`lucene` (BM25 builds through Anserini), `dense` (encoded shards and faiss), `kb` (the KB store of a KBQA
knowledge base, in SQLite), `merge` and `distributed` (builds on Ray); the command line is qa_baseline/index.py
(`python -m qa_baseline.index`)."""
