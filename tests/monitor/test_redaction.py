from monitor.redaction import hide_userinfo
from monitor.scrape import NetworkError


def test_only_the_password_of_every_url_is_hidden():
    assert hide_userinfo("postgresql://u:p@h:5/db?x=1") == "postgresql://u:***@h:5/db?x=1"
    assert hide_userinfo("postgresql://u@h/db") == "postgresql://u@h/db"  # no password
    assert hide_userinfo("https://h/a:b@c") == "https://h/a:b@c"  # a path, not credentials
    # A raw "@" inside the password is the password's, as urllib.parse.urlsplit reads it.
    assert hide_userinfo("http://bot:s3@cr3t@[::1]:81/x") == "http://bot:***@[::1]:81/x"
    assert hide_userinfo("GET https://a:1@x/ then http://b:2@y/ failed") == (
        "GET https://a:***@x/ then http://b:***@y/ failed"
    )


def test_a_scrape_error_never_carries_a_base_urls_password():
    error = NetworkError("selectel", "GET https://mirror:hunter2@127.0.0.1:9/x: refused")
    assert "hunter2" not in str(error)
    assert "hunter2" not in error.detail
    assert "mirror:***@127.0.0.1" in error.detail
