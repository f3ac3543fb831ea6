#!/usr/bin/env python3
"""A small client of a survey's responses, written against the real survey
service's API as its public clients use it (standard library only):

- GET /api/v2/surveys/{id}/responses/results-table/?page=N&page_size=M&sort=asc
  answers {"header": [{"id", "title", "choices", "allow_multiple_select",
  ...}], "body": [{"responder_id", "responder_code",
  "data": [...]}], "responders_count", "invisible_responders_count"}; pages
  are read until one comes back short (or 404 past the end);
- GET /api/v2/surveys/{id}/responses/export/ answers {"export": "<url>"},
  a CSV file of every response, fetched without the API key.

Usage: results_client.py BASE_URL API_KEY SURVEY_ID [PAGE_SIZE]
Prints one JSON object: what it read.
"""
import csv
import io
import json
import sys
import urllib.error
import urllib.parse
import urllib.request


class Client:
    def __init__(self, base_url, api_key):
        self.base_url = base_url.rstrip("/")
        self.api_key = api_key

    def _get_json(self, path, params=None):
        url = self.base_url + path
        if params:
            url += "?" + urllib.parse.urlencode(params)
        req = urllib.request.Request(url, headers={
            "Authorization": "API-Key " + self.api_key,
            "Accept": "application/json",
        })
        with urllib.request.urlopen(req, timeout=30) as resp:
            if resp.status != 200:
                raise RuntimeError("%s answered %d" % (url, resp.status))
            return json.load(resp)

    def results_table(self, survey_id, page_size=100, sort="asc"):
        """Yields (header, row) for every responder, page after page."""
        page = 1
        while True:
            try:
                data = self._get_json(
                    "/api/v2/surveys/%d/responses/results-table/" % survey_id,
                    {"page": page, "page_size": page_size, "sort": sort})
            except urllib.error.HTTPError as e:
                if e.code == 404 and page > 1:
                    return  # past the last page
                raise
            for key in ("header", "body", "responders_count", "invisible_responders_count"):
                if key not in data:
                    raise RuntimeError("results-table without %r" % key)
            header = data["header"]
            for row in data["body"]:
                if len(row["data"]) != len(header):
                    raise RuntimeError("a row of %d cells under %d titles" % (len(row["data"]), len(header)))
                yield data, row
            if len(data["body"]) < page_size:
                return
            page += 1

    def export(self, survey_id):
        """Downloads the export file and answers its rows as dicts."""
        link = self._get_json("/api/v2/surveys/%d/responses/export/" % survey_id)["export"]
        with urllib.request.urlopen(link, timeout=30) as resp:  # follows the redirect to the file
            text = resp.read().decode("utf-8-sig")
        return list(csv.DictReader(io.StringIO(text, newline="")))


def titles(header):
    """The columns' titles, a multi-select question's once per choice (it
    has a cell per choice), as the real clients walk the header."""
    out = []
    for col in header:
        if col.get("allow_multiple_select"):
            out.extend(col["title"] for _ in col["choices"])
        else:
            out.append(col["title"])
    return out


def main(argv):
    base, key, survey_id = argv[1], argv[2], int(argv[3])
    page_size = int(argv[4]) if len(argv) > 4 else 100
    client = Client(base, key)
    ids, codes, count, header, cells = [], {}, None, None, {}
    for page, row in client.results_table(survey_id, page_size=page_size):
        count, header = page["responders_count"], page["header"]
        ids.append(row["responder_id"])
        if row["responder_code"] is not None:
            codes[str(row["responder_id"])] = row["responder_code"]
        cells[str(row["responder_id"])] = dict(zip(titles(page["header"]), row["data"]))
    exported = client.export(survey_id)
    print(json.dumps({
        "responders_count": count,
        "header": titles(header),
        "ids": ids,
        "codes": codes,
        "cells": cells,
        "export_ids": [int(r["id"]) for r in exported],
        "export_header": list(exported[0].keys()) if exported else None,
    }, ensure_ascii=False))


if __name__ == "__main__":
    main(sys.argv)
