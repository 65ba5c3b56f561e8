"""The JVM that runs Anserini (Lucene) and the glue to it: starting it (`jvm`), its log (`javalog`), the
analyzers (`analysis`) and what opens a Lucene index for search (`searcher`)."""
