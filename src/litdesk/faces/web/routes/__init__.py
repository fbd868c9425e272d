"""One module per area; each has ``pages`` (HTML) and ``api`` (``/api/v1``) routers whose
handlers parse, call one desk method and render the same view data."""
