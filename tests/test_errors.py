import json

import pytest
from django.test import Client, override_settings


@pytest.mark.django_db
def test_unknown_api_path_is_json_404(client):
    response = client.get("/api/v1/no-such-thing/")
    assert response.status_code == 404
    assert json.loads(response.content)["code"] == "not_found"


@pytest.mark.django_db
def test_unknown_page_is_a_translated_html_404(client):
    response = client.get("/no-such-page/", HTTP_ACCEPT_LANGUAGE="zh-CN")
    assert response.status_code == 404
    assert "这个页面不存在" in response.content.decode()


@pytest.mark.django_db
def test_server_error_handler_answers_json_for_the_api():
    from django.urls import path

    def boom(request):
        raise RuntimeError("boom")

    import config.urls

    urlpatterns = [path("api/v1/boom/", boom), *config.urls.urlpatterns]

    class Urls:
        pass

    Urls.urlpatterns = urlpatterns
    Urls.handler500 = config.urls.handler500
    with override_settings(ROOT_URLCONF=Urls, DEBUG=False):
        client = Client(raise_request_exception=False)
        response = client.get("/api/v1/boom/")
    assert response.status_code == 500
    assert json.loads(response.content) == {
        "detail": json.loads(response.content)["detail"],
        "code": "server_error",
    }
