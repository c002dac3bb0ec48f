FROM python:3.12-slim
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1
WORKDIR /app
COPY . .
RUN pip install --no-cache-dir . \
 && DJANGO_DEBUG=false DJANGO_SECRET_KEY=build-only python manage.py collectstatic --noinput
RUN useradd --create-home evalsite && mkdir -p /app/var/pack-files && chown -R evalsite /app/var
USER evalsite
EXPOSE 8000
CMD ["gunicorn", "evalsite.wsgi:application", "--bind", "0.0.0.0:8000", "--workers", "3", "--access-logfile", "-"]
