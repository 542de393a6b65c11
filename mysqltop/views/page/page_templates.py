"""Writing the page: the Jinja2 environment (autoescape on for everything), the stylesheet, and
the Content-Security-Policy that goes with them.

The page runs no script: the policy forbids every script, every remote or local load (images,
fonts, frames, connections) and every style but the page's own stylesheet, named by its SHA-256
hash — an injected <style> or style attribute is refused too. The only text not escaped is that
stylesheet (our own file, templates/page.css).
"""

from __future__ import annotations

import base64
import functools
import hashlib
from pathlib import Path

from jinja2 import Environment, FileSystemLoader, StrictUndefined
from markupsafe import Markup

from mysqltop.views.page.page_model import Page

TEMPLATES = Path(__file__).resolve().parent / "templates"


@functools.lru_cache(maxsize=1)
def environment() -> Environment:
    return Environment(loader=FileSystemLoader(str(TEMPLATES)), autoescape=True, undefined=StrictUndefined,
                       trim_blocks=True, lstrip_blocks=True, auto_reload=False)


@functools.lru_cache(maxsize=1)
def stylesheet() -> tuple[Markup, str]:
    """The stylesheet and its CSP source ('sha256-…' of exactly the text put in <style>)."""
    css = (TEMPLATES / "page.css").read_text(encoding="utf-8")
    digest = base64.b64encode(hashlib.sha256(css.encode("utf-8")).digest()).decode("ascii")
    return Markup(css), f"'sha256-{digest}'"


def policy(style_source: str) -> str:
    return (f"default-src 'none'; style-src {style_source}; img-src 'none'; font-src 'none'; "
            "connect-src 'none'; media-src 'none'; object-src 'none'; frame-src 'none'; child-src 'none'; "
            "worker-src 'none'; manifest-src 'none'; script-src 'none'; base-uri 'none'; form-action 'none'")


def render(page: Page) -> str:
    css, source = stylesheet()
    return environment().get_template("report.html.j2").render(page=page, css=css, csp=policy(source))
