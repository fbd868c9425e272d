"""The edge: one seam each — HTTP transport and provider adapters, file formats, PDF
reading, embeddings, LLM backends, the store. Import from the subpackage."""
