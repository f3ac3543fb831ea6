#!/usr/bin/env python3
"""Runs porsline-sdk's own Form.responses() (unchanged, under porsline/)
against a server: usage run_sdk.py BASE_URL API_KEY SURVEY_ID SINCE.
Prints what its three calls return, as JSON."""
import json
import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [here, os.path.join(here, "shim")]

from porsline.form import Form  # noqa: E402


def main(argv):
    base, key, survey_id, since = argv[1], argv[2], int(argv[3]), argv[4]
    Form.BASE_URL = base.rstrip("/")
    form = Form(survey_id, "survey", key)
    print(json.dumps({
        "plain": form.responses(),
        "since": form.responses(since=since),
        "header": form.responses(header=True),
    }, ensure_ascii=False, default=str))


if __name__ == "__main__":
    main(sys.argv)
