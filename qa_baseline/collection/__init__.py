"""Data search collections: metadata records and their data files (CSV, XLSX) read into Tables.

metadata.py: metadata JSONL (plain/.gz/.bz2) and where data files live; sources.py: a folder or a tar archive
read member by member; readers.py: CSV (sniffed encoding and delimiter) and XLSX (openpyxl) -> Tables;
table.py: the Table and header detection."""
from .metadata import Collection, open_collection, read_metadata, text_fields
from .readers import DataFileError, read_tables
from .table import Table

__all__ = ["Collection", "DataFileError", "Table", "open_collection", "read_metadata", "read_tables", "text_fields"]
