#!/bin/sh
# Installs the C libraries Searchlight links (SQLite with FTS5, PCRE2, libedit, libmicrohttpd,
# libxml2 for HTML, zlib for gzip-compressed documents, zstd for stored records) and poppler-utils (pdftotext, for PDF files) on Debian or Ubuntu when they
# are missing. Safe to run repeatedly: it does nothing when they are already present.
set -eu
missing=""
[ -f /usr/include/sqlite3.h ] || missing="$missing libsqlite3-dev"
[ -f /usr/include/pcre2.h ] || missing="$missing libpcre2-dev"
[ -f /usr/include/histedit.h ] || missing="$missing libedit-dev"
[ -f /usr/include/microhttpd.h ] || missing="$missing libmicrohttpd-dev"
[ -f /usr/include/libxml2/libxml/HTMLparser.h ] || missing="$missing libxml2-dev"
[ -f /usr/include/zlib.h ] || missing="$missing zlib1g-dev"
[ -f /usr/include/zstd.h ] || missing="$missing libzstd-dev"
command -v pkg-config >/dev/null 2>&1 || missing="$missing pkg-config"
command -v pdftotext >/dev/null 2>&1 || missing="$missing poppler-utils"
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
