"""A browsable API description at /docs: Swagger UI, vendored (no network at run time)."""

from __future__ import annotations

from flask import Blueprint, send_from_directory
from swagger_ui_bundle import swagger_ui_path

blp = Blueprint("docs", __name__)

PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>gruft API</title>
<link rel="stylesheet" href="/docs/assets/swagger-ui.css"></head>
<body><div id="ui"></div>
<script src="/docs/assets/swagger-ui-bundle.js"></script>
<script>SwaggerUIBundle({url: "/openapi.json", dom_id: "#ui", deepLinking: true});</script>
</body></html>"""


@blp.get("/docs")
def docs_page():
    """Swagger UI over /openapi.json."""
    return PAGE, 200, {"Content-Type": "text/html; charset=utf-8"}


@blp.get("/docs/assets/<path:name>")
def docs_asset(name: str):
    """Swagger UI's own files, from the swagger-ui-bundle package."""
    return send_from_directory(swagger_ui_path, name, max_age=86400)
