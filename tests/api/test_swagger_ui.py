"""``/docs`` works offline: its page loads Swagger UI only from the service itself."""

from __future__ import annotations

import re

from flask.testing import FlaskClient

#: by suffix (``.js`` is one or the other, depending on the machine's mime.types)
CONTENT_TYPES = {".js": {"text/javascript", "application/javascript"}, ".css": {"text/css"}}


def test_the_docs_page_refers_only_to_local_urls_and_each_is_served(
    client: FlaskClient,
) -> None:
    page = client.get("/docs")
    assert page.status_code == 200
    html = page.get_data(as_text=True)
    assert "://" not in html  # no CDN, no absolute URL of any host
    urls = re.findall(r'(?:src|href)="([^"]+)"', html)
    assert len(urls) == 3, urls  # the bundle, the preset and the stylesheet
    for url in urls:
        assert url.startswith("/") and not url.startswith("//"), url
        r = client.get(url)
        assert r.status_code == 200, url
        assert r.mimetype in CONTENT_TYPES[url[url.rindex("."):]], (url, r.mimetype)
        assert len(r.data) > 1000, url  # the real file, not an empty answer
    assert client.get("/openapi.json").status_code == 200  # what the page then loads


def test_only_swagger_uis_own_files_are_served_not_the_rest_of_its_package(
    client: FlaskClient,
) -> None:
    assert client.get("/docs/swagger-ui/swagger-ui.css").status_code == 200
    for name in ("index.html", "swagger-initializer.js", "index.j2", "../__init__.py"):
        assert client.get(f"/docs/swagger-ui/{name}").status_code == 404, name
