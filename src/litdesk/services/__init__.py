"""Services compose core and adapters: search, library, workspace, synthesis, dedup.
Faces (CLI, web) call services only. Import from the subpackage."""
