"""`/docs`: Swagger UI served offline from the assets of the `swagger-ui-bundle-v2` package
(Swagger UI 5, which renders OpenAPI 3.1), never from a CDN; ReDoc (CDN only) is off.

Routes: `GET /docs` (the page, on `/openapi.json`) and `/docs/assets/*` (the package's
`swagger-ui-bundle.js`, `swagger-ui.css`, favicons). Source: docs/decisions/0019-hostile-input-at-every-door.md ("`/docs` is a blank page
offline (Swagger UI from a CDN)").
"""

from __future__ import annotations

from fastapi import FastAPI
from fastapi.openapi.docs import get_swagger_ui_html
from fastapi.responses import HTMLResponse
from fastapi.staticfiles import StaticFiles
from swagger_ui_bundle import swagger_ui_path

ASSETS = "/docs/assets"


def install_docs(app: FastAPI) -> None:
    """Serve Swagger UI at `/docs` from local assets (build `app` with `docs_url=None`)."""
    app.mount(ASSETS, StaticFiles(directory=swagger_ui_path), name="swagger-ui")

    @app.get("/docs", include_in_schema=False)
    async def docs() -> HTMLResponse:
        """The Swagger UI page; its script, style and icon come from `/docs/assets`."""
        return get_swagger_ui_html(
            openapi_url=app.openapi_url or "/openapi.json",
            title=f"{app.title} - API",
            swagger_js_url=f"{ASSETS}/swagger-ui-bundle.js",
            swagger_css_url=f"{ASSETS}/swagger-ui.css",
            swagger_favicon_url=f"{ASSETS}/favicon-32x32.png",
        )
