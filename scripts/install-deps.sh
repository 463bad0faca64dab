#!/bin/sh
# Installs the C libraries Searchlight links (SQLite with FTS5, PCRE2, libedit, libmicrohttpd) on Debian or
# Ubuntu when their headers are missing. Safe to run repeatedly: it does nothing when they are
# already present.
set -eu
missing=""
[ -f /usr/include/sqlite3.h ] || missing="$missing libsqlite3-dev"
[ -f /usr/include/pcre2.h ] || missing="$missing libpcre2-dev"
[ -f /usr/include/histedit.h ] || missing="$missing libedit-dev"
[ -f /usr/include/microhttpd.h ] || missing="$missing libmicrohttpd-dev"
[ -z "$missing" ] && exit 0
if ! command -v apt-get >/dev/null 2>&1; then
  echo "error: please install the development packages for:$missing" >&2
  exit 1
fi
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
echo "installing:$missing" >&2
$SUDO apt-get update -qq
# shellcheck disable=SC2086
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $missing >/dev/null
