"""A minimal OpenID Connect provider for tests: discovery, an authorization endpoint that signs the
configured user in at once (no login form), a token endpoint that returns an RS256-signed ID token
with the nonce it was given, and the JWKS to check it. Enough for Streamlit's ``st.login`` (Authlib)
to run its real code-flow round trip against it, PKCE included.

    with FakeOIDC(user={"email": "ana@example.com", "groups": ["red"]}) as idp:
        idp.metadata_url  # -> server_metadata_url for .streamlit/secrets.toml
"""

from __future__ import annotations

import base64
import hashlib
import json
import secrets
import threading
import time
import warnings
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlencode, urlparse


def _jose():
    import authlib.deprecate  # noqa: F401 - it installs an "always" filter for its warning; ours comes after

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # authlib.jose is deprecated in favour of joserfc, still shipped
        from authlib.jose import JsonWebKey, jwt
    return JsonWebKey, jwt


class FakeOIDC:
    def __init__(self, user: dict[str, Any], client_id: str = "anchor-test", client_secret: str = "s3cret") -> None:
        self.user = user
        self.client_id, self.client_secret = client_id, client_secret
        json_web_key, self._jwt = _jose()
        self.key = json_web_key.generate_key("RSA", 2048, is_private=True)
        self.codes: dict[str, dict[str, str]] = {}
        self.requests: list[str] = []
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.issuer = f"http://127.0.0.1:{self.server.server_port}"
        self.metadata_url = f"{self.issuer}/.well-known/openid-configuration"

    def __enter__(self) -> FakeOIDC:
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()

    def metadata(self) -> dict[str, Any]:
        return {"issuer": self.issuer, "authorization_endpoint": f"{self.issuer}/authorize",
                "token_endpoint": f"{self.issuer}/token", "jwks_uri": f"{self.issuer}/jwks",
                "response_types_supported": ["code"], "subject_types_supported": ["public"],
                "id_token_signing_alg_values_supported": ["RS256"], "code_challenge_methods_supported": ["S256"],
                "scopes_supported": ["openid", "email", "profile"],
                "token_endpoint_auth_methods_supported": ["client_secret_basic", "client_secret_post"]}

    def id_token(self, nonce: str) -> str:
        now = int(time.time())
        claims = {"iss": self.issuer, "aud": self.client_id, "sub": self.user.get("email", "user"), "iat": now,
                  "exp": now + 600, "nonce": nonce, **self.user}
        header = {"alg": "RS256", "kid": self.key.as_dict()["kid"]}
        return self._jwt.encode(header, claims, self.key).decode()

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        idp = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:  # quiet
                pass

            def _json(self, body: dict[str, Any], status: int = 200) -> None:
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self) -> None:  # noqa: N802 - http.server's name
                url = urlparse(self.path)
                idp.requests.append(url.path)
                if url.path == "/.well-known/openid-configuration":
                    return self._json(idp.metadata())
                if url.path == "/jwks":
                    return self._json({"keys": [idp.key.as_dict(is_private=False)]})
                if url.path == "/authorize":
                    q = {k: v[0] for k, v in parse_qs(url.query).items()}
                    if q.get("client_id") != idp.client_id or q.get("response_type") != "code":
                        return self._json({"error": "invalid_request"}, 400)
                    code = secrets.token_urlsafe(16)
                    idp.codes[code] = q
                    self.send_response(302)
                    self.send_header("Location", q["redirect_uri"] + "?" + urlencode(
                        {"code": code, "state": q.get("state", "")}))
                    self.end_headers()
                    return None
                return self._json({"error": "not_found"}, 404)

            def do_POST(self) -> None:  # noqa: N802
                url = urlparse(self.path)
                idp.requests.append(url.path)
                body = {k: v[0] for k, v in parse_qs(self.rfile.read(int(self.headers.get("Content-Length", 0)))
                                                     .decode()).items()}
                auth = self.headers.get("Authorization", "")
                basic = (base64.b64decode(auth[6:]).decode() if auth.startswith("Basic ") else
                         f"{body.get('client_id', '')}:{body.get('client_secret', '')}")
                if url.path != "/token" or basic != f"{idp.client_id}:{idp.client_secret}":
                    return self._json({"error": "invalid_client"}, 401)
                grant = idp.codes.pop(body.get("code", ""), None)
                if grant is None or body.get("redirect_uri") != grant.get("redirect_uri"):
                    return self._json({"error": "invalid_grant"}, 400)
                challenge = grant.get("code_challenge")
                if challenge:  # PKCE S256: the verifier must hash to the challenge sent to /authorize
                    digest = hashlib.sha256(body.get("code_verifier", "").encode()).digest()
                    if base64.urlsafe_b64encode(digest).rstrip(b"=").decode() != challenge:
                        return self._json({"error": "invalid_grant", "error_description": "PKCE"}, 400)
                return self._json({"access_token": secrets.token_urlsafe(16), "token_type": "Bearer",
                                   "expires_in": 600, "id_token": idp.id_token(grant.get("nonce", ""))})

        return Handler
