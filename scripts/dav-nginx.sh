#!/usr/bin/env bash
# Starts nginx on 127.0.0.1 as a remote cache tier with WebDAV PUT (Debian's nginx-light has the
# module) under DIR/root/cache/, with a JSON directory listing (for `cache pull`).
# Usage: dav-nginx.sh DIR  -> prints the base URL (http://127.0.0.1:PORT/cache/); stop with
#        kill "$(cat DIR/nginx.pid)". Everything nginx writes stays in DIR. As root its workers
#        run as nobody, so the upload directories are handed to nobody.
set -euo pipefail
DIR=$(realpath "$1")
mkdir -p "$DIR/root/cache" "$DIR/body" "$DIR/logs"
chmod 755 "$DIR"   # the workers (nobody, as root) must traverse it (its parent too: the caller's part)
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
USER_LINE=""
if [[ $(id -u) -eq 0 ]]; then
  chown -R nobody:nogroup "$DIR/root" "$DIR/body"
  USER_LINE="user nobody nogroup;"
fi
cat > "$DIR/nginx.conf" <<CONF
$USER_LINE
worker_processes 1;
pid $DIR/nginx.pid;
error_log $DIR/logs/error.log;
events { worker_connections 256; }
http {
  access_log $DIR/logs/access.log;
  client_body_temp_path $DIR/body;
  proxy_temp_path $DIR/body;
  fastcgi_temp_path $DIR/body;
  uwsgi_temp_path $DIR/body;
  scgi_temp_path $DIR/body;
  server {
    listen 127.0.0.1:$PORT;
    root $DIR/root;
    client_max_body_size 200m;
    location /cache/ {
      dav_methods PUT DELETE;
      create_full_put_path on;
      dav_access user:rw group:r all:r;
      autoindex on;
      autoindex_format json;
    }
  }
}
CONF
nginx -c "$DIR/nginx.conf" -p "$DIR" -e "$DIR/logs/error.log" 2>/dev/null || nginx -c "$DIR/nginx.conf" -p "$DIR"
for _ in $(seq 50); do [[ -s "$DIR/nginx.pid" ]] && break; sleep 0.1; done
echo "http://127.0.0.1:$PORT/cache/"
