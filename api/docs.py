"""A browsable API description at /docs: Swagger UI, vendored (no network at run time)."""

from __future__ import annotations

from flask import Blueprint, send_from_directory
from swagger_ui_bundle import swagger_ui_path

blp = Blueprint("docs", __name__)

PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>gruft API</title>
<link rel="icon" href="data:,"><link rel="stylesheet" href="/docs/assets/swagger-ui.css"></head>
<body><div id="ui"></div>
<script src="/docs/assets/swagger-ui-bundle.js"></script>
<script src="/docs/start.js"></script>
</body></html>"""
# In a file of its own, not inline: the page's policy (api/headers.py) runs no inline script.
START = 'SwaggerUIBundle({url: "/openapi.json", dom_id: "#ui", deepLinking: true});\n'


@blp.get("/docs")
def docs_page():
    """Swagger UI over /openapi.json."""
    return PAGE, 200, {"Content-Type": "text/html; charset=utf-8"}


@blp.get("/docs/start.js")
def docs_start():
    """The script that starts Swagger UI on the page."""
    return START, 200, {"Content-Type": "text/javascript; charset=utf-8",
                        "Cache-Control": "max-age=86400"}


@blp.get("/docs/assets/<path:name>")
def docs_asset(name: str):
    """Swagger UI's own files, from the swagger-ui-bundle package."""
    return send_from_directory(swagger_ui_path, name, max_age=86400)
