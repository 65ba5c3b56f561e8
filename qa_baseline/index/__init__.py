"""Indexes: `layout` (folders, fingerprints, manifests, the indexed text: all that retrievers need),
`lucene` (BM25 builds through Anserini), `dense` (encoded shards and faiss), `kb` (the KB store of a KBQA
knowledge base, in SQLite), `merge` and `distributed` (builds on Ray), and the command line
(`python -m qa_baseline.index`, in __main__)."""
