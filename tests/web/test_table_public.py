"""The table put online: trusted proxies, the public origin, and TURN credentials.

Pure functions here (no server); the server's use of them is in
``test_table_online.py``.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import shutil
import subprocess

import pytest

from backalley.web.origins import PublicUrl, expected_origin, origin_allowed
from backalley.web.proxies import MAX_FORWARDED_HOPS, TrustedProxies
from backalley.web.turn import Turn, credentials


def _h(**headers: str) -> list[tuple[bytes, bytes]]:
    return [(name.replace("_", "-").encode(), value.encode()) for name, value in headers.items()]


# --- trusted proxies ---------------------------------------------------------------------


def test_no_proxy_is_trusted_by_default():
    """The default trusts nobody: a forged header from loopback moves nothing."""
    headers = _h(x_forwarded_for="203.0.113.5", forwarded="for=198.51.100.1")
    assert TrustedProxies().client("127.0.0.1", headers) == "127.0.0.1"
    assert TrustedProxies().forwarded_origin("127.0.0.1", headers) is None


def test_a_trusted_proxy_names_the_client():
    proxies = TrustedProxies.parse(["127.0.0.1"])
    assert proxies.client("127.0.0.1", _h(x_forwarded_for="203.0.113.5")) == "203.0.113.5"
    # An untrusted peer's header is ignored, however it is written.
    assert proxies.client("192.0.2.1", _h(x_forwarded_for="203.0.113.5")) == "192.0.2.1"
    assert proxies.client("192.0.2.1", _h(forwarded="for=203.0.113.5")) == "192.0.2.1"


def test_the_chain_is_read_from_the_right():
    """A visitor's own X-Forwarded-For is the left part of the chain: it is not believed."""
    proxies = TrustedProxies.parse(["127.0.0.1", "10.0.0.0/8"])
    # The visitor (198.51.100.7) forged "1.2.3.4"; the proxy appended what it saw.
    headers = _h(x_forwarded_for="1.2.3.4, 198.51.100.7, 10.0.0.2")
    assert proxies.client("127.0.0.1", headers) == "198.51.100.7"
    # Two headers are one list, in order.
    headers = [(b"x-forwarded-for", b"1.2.3.4"), (b"x-forwarded-for", b"198.51.100.7")]
    assert proxies.client("127.0.0.1", headers) == "198.51.100.7"
    # Every hop trusted: the farthest one is the client.
    assert proxies.client("127.0.0.1", _h(x_forwarded_for="10.1.1.1")) == "10.1.1.1"


def test_forwarded_rfc_7239():
    proxies = TrustedProxies.parse(["::1", "127.0.0.1"], header="forwarded")
    headers = _h(forwarded='for=192.0.2.60;proto=https;host=table.example, for="[2001:db8::7]:41"')
    assert proxies.client("::1", headers) == "2001:db8::7"
    assert proxies.client("127.0.0.1", _h(forwarded="for=192.0.2.43:47011")) == "192.0.2.43"
    # Only the header the proxies write is read: the other one a visitor may have written.
    both = _h(forwarded="for=192.0.2.60", x_forwarded_for="203.0.113.1")
    assert proxies.client("127.0.0.1", both) == "192.0.2.60"
    assert TrustedProxies.parse(["127.0.0.1"]).client("127.0.0.1", both) == "203.0.113.1"
    # A visitor's Forwarded passed on by a proxy that writes X-Forwarded-For moves nothing.
    forged = _h(forwarded="for=198.51.100.1")
    assert TrustedProxies.parse(["127.0.0.1"]).client("127.0.0.1", forged) == "127.0.0.1"
    assert proxies.forwarded_origin(
        "127.0.0.1", _h(forwarded="for=192.0.2.60;proto=https;host=table.example")
    ) == ("https", "table.example")


@pytest.mark.parametrize("entry", ["unknown", "_hidden", "not an address", "", "999.1.1.1"])
def test_an_entry_that_is_no_address_leaves_the_proxy_as_the_client(entry):
    proxies = TrustedProxies.parse(["127.0.0.1"])
    assert proxies.client("127.0.0.1", _h(x_forwarded_for=entry)) == "127.0.0.1"
    rfc = TrustedProxies.parse(["127.0.0.1"], header="forwarded")
    assert rfc.client("127.0.0.1", _h(forwarded=f"for={entry}")) == "127.0.0.1"


def test_a_long_chain_is_read_only_so_far():
    proxies = TrustedProxies.parse(["10.0.0.0/8"])
    chain = ", ".join(["203.0.113.9"] + ["10.0.0.1"] * (MAX_FORWARDED_HOPS + 5))
    # Past the hops read, the last one read (trusted) stands for the client.
    assert proxies.client("10.0.0.1", _h(x_forwarded_for=chain)) == "10.0.0.1"


def test_ipv4_mapped_peers_are_matched():
    proxies = TrustedProxies.parse(["127.0.0.1"])
    assert proxies.trusts("::ffff:127.0.0.1")
    assert not proxies.trusts("::ffff:127.0.0.2")


@pytest.mark.parametrize("text", ["proxy.example", "10.0.0.0/33", "", "1.2.3"])
def test_a_bad_proxy_is_refused_by_name(text):
    with pytest.raises(ValueError, match="a trusted proxy is an IP address"):
        TrustedProxies.parse([text])


def test_only_the_two_proxy_headers():
    with pytest.raises(ValueError, match="header"):
        TrustedProxies.parse(["127.0.0.1"], header="x-real-ip")


# --- the public origin -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "origin"),
    [
        ("https://table.example", "https://table.example"),
        ("https://Table.Example:443/", "https://table.example"),
        ("http://table.example:8080", "http://table.example:8080"),
        ("https://[2001:db8::1]:8443", "https://[2001:db8::1]:8443"),
    ],
)
def test_public_urls(text, origin):
    assert PublicUrl.parse(text).origin == origin
    assert PublicUrl.parse(text).link("/seat/x") == origin + "/seat/x"


@pytest.mark.parametrize(
    "text",
    [
        "table.example",
        "ftp://table.example",
        "https://table.example/play",
        "https://table.example/?q=1",
        "https://user@table.example",
        "https://table.example:99999",
        "https://",
    ],
)
def test_bad_public_urls_are_refused_by_name(text):
    with pytest.raises(ValueError, match="the public URL is a scheme and a name"):
        PublicUrl.parse(text)


def _scope(origin=None, host="127.0.0.1:8000", peer="127.0.0.1", scheme="ws", **more):
    headers = _h(host=host, **more)
    if origin is not None:
        headers.append((b"origin", origin.encode()))
    return {"type": "websocket", "scheme": scheme, "client": (peer, 5555), "headers": headers}


def test_same_origin_sockets_without_a_public_url():
    none = TrustedProxies()
    assert origin_allowed(_scope("http://127.0.0.1:8000"), None, none)
    assert origin_allowed(_scope(None), None, none)  # no Origin: not a browser
    assert not origin_allowed(_scope("https://evil.example"), None, none)
    assert not origin_allowed(_scope("http://127.0.0.1:8001"), None, none)
    assert not origin_allowed(_scope("null"), None, none)
    # A name rebound to this machine: same origin, yet its own name is what it is.
    rebound = _scope("http://rebound.example:8000", host="rebound.example:8000")
    assert origin_allowed(rebound, None, none)
    assert not origin_allowed(rebound, PublicUrl.parse("https://table.example"), none)


def test_with_a_public_url_only_its_origin_and_loopback():
    public = PublicUrl.parse("https://table.example")
    none = TrustedProxies()
    assert origin_allowed(_scope("https://table.example", host="table.example"), public, none)
    assert origin_allowed(_scope("https://table.example:443"), public, none)
    assert not origin_allowed(_scope("http://table.example"), public, none)
    assert not origin_allowed(_scope("https://evil.example", host="evil.example"), public, none)
    # The host at the serving machine itself.
    assert origin_allowed(_scope("http://127.0.0.1:8000"), public, none)
    assert origin_allowed(_scope("http://localhost:8000", host="localhost:8000"), public, none)
    assert expected_origin(_scope(), public, none) == "https://table.example"


def test_a_trusted_proxy_says_which_origin_was_asked_for():
    proxies = TrustedProxies.parse(["127.0.0.1"])
    behind = _scope(
        "https://table.example",
        host="table.example",
        x_forwarded_for="203.0.113.5",
        x_forwarded_proto="https",
    )
    assert expected_origin(behind, None, proxies) == "https://table.example"
    assert origin_allowed(behind, None, proxies)
    # The same headers from a peer not trusted: the connection's own scheme (http) counts.
    assert not origin_allowed(behind, None, TrustedProxies())


# --- TURN credentials --------------------------------------------------------------------


def test_turn_credentials_are_coturns_rest_scheme():
    turn = Turn(urls=("turn:127.0.0.1:3478",), secret=b"shared", lifetime=600)
    server = turn.ice_server("r1-S", now=1_000_000)
    assert server["urls"] == ["turn:127.0.0.1:3478"]
    assert server["username"] == "1000600:r1-S"
    expected = base64.b64encode(
        hmac.new(b"shared", b"1000600:r1-S", hashlib.sha1).digest()
    ).decode()
    assert server["credential"] == expected
    assert credentials("1000600:r1-S", b"other") != expected
    assert "shared" not in repr(turn)


@pytest.mark.skipif(shutil.which("openssl") is None, reason="needs the openssl command")
def test_turn_credentials_match_openssl():
    username = "1700000000:room-W"
    made = subprocess.run(
        ["openssl", "dgst", "-sha1", "-hmac", "k3y", "-binary"],
        input=username.encode(),
        capture_output=True,
        check=True,
    ).stdout
    assert credentials(username, b"k3y") == base64.b64encode(made).decode()


@pytest.mark.parametrize("url", ["stun:x:3478", "http://x", "turn:x y", "turn:" + "x" * 300])
def test_bad_turn_urls_are_refused(url):
    with pytest.raises(ValueError, match="a TURN server is an address"):
        Turn(urls=(url,), secret=b"s")


def test_an_empty_turn_secret_is_refused():
    with pytest.raises(ValueError, match="secret is empty"):
        Turn(urls=("turn:x:3478",), secret=b"")
