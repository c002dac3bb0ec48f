"""HTML pages of benchmark packs and baseline snapshots."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render


@login_required
def benchmark_list(request: HttpRequest) -> HttpResponse:
    return render(request, "evals/benchmark_list.html")


@login_required
def baseline_list(request: HttpRequest) -> HttpResponse:
    return render(request, "evals/baseline_list.html")
