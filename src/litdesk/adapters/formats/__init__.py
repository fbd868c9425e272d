"""File formats: import (RIS, BibTeX, Scopus CSV, Web of Science, MEDLINE, CSL-JSON,
EndNote XML, generic CSV/TSV, saved provider responses) and export (RIS, BibTeX,
CSL-JSON, CSV). Mirrors ``json``: ``load/loads/dump/dumps``."""
