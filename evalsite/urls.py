from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView

from evalsite import views
from evalsite.login import ThrottledLoginView

urlpatterns = [
    path("", views.home, name="home"),
    path("health/", views.health, name="health"),
    path("healthz", views.healthz, name="healthz"),
    path("favicon.ico", views.favicon, name="favicon"),
    path("accounts/login/", ThrottledLoginView.as_view(), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("admin/", admin.site.urls),
    path("api/schema/", SpectacularAPIView.as_view(), name="api-schema"),
    path(
        "api/docs/",
        SpectacularSwaggerSplitView.as_view(url_name="api-schema"),
        name="api-docs",
    ),
    path("", include("stream.urls")),
    path("", include("evals.urls")),
    path("", include("gridworld.urls")),
    path("", include("prkeepalive.urls")),
    path("", include("traces.urls")),
    path("", include("accounts.urls")),
    path("", include("reviews.urls")),
    path("", include("search.urls")),
]

handler400 = "evalsite.views_errors.bad_request"
handler404 = "evalsite.views_errors.not_found"
handler500 = "evalsite.views_errors.server_error"
