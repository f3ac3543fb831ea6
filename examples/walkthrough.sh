#!/usr/bin/env bash
# The five-minute walkthrough, against a running `make run`: KEY is the API key
# its banner prints, BASE its address. Needs curl and jq; stops at the first
# answer whose status is not the one expected.
set -euo pipefail
BASE=${BASE:-http://127.0.0.1:3000}
: "${KEY:?set KEY to the API key make run printed}"

# call METHOD PATH STATUS [BODY [CURL ARGS...]] prints the answer's body.
call() {
  local method=$1 path=$2 want=$3 body=${4-} out status
  shift $(($# < 4 ? $# : 4))
  out=$(curl -sS -X "$method" -w '\n%{http_code}' -H "Authorization: API-Key $KEY" \
    -H 'Content-Type: application/json' ${body:+--data "$body"} "$@" "$BASE$path")
  status=${out##*$'\n'} out=${out%$'\n'*}
  if [ "$status" != "$want" ]; then
    echo "$method $path answered $status, not $want: $out" >&2
    exit 1
  fi
  printf '%s\n' "$out"
}

# 1. The owner: a folder, a survey in it, and two questions.
folder=$(call POST /api/folders/ 201 '{"name": "Walkthrough"}' | jq -r .id)
survey=$(call POST /api/v2/surveys/ 201 "{\"name\": \"Lunch\", \"folder_id\": $folder, \"language\": 4}")
sid=$(jq -r .id <<<"$survey") slug=$(jq -r .url_slug <<<"$survey") report=$(jq -r .report_code <<<"$survey")
pick=$(call POST "/api/v2/surveys/$sid/questions/" 201 \
  '{"title": "What shall we eat?", "type": 3, "choices": [{"name": "Soup"}, {"name": "Salad"}]}')
q1=$(jq -r .id <<<"$pick") soup=$(jq -r '.choices[0].id' <<<"$pick")
q2=$(call POST "/api/v2/surveys/$sid/questions/" 201 '{"title": "Anything else?", "type": 2}' | jq -r .id)

# 2. Settings: only the fields sent change.
call PATCH "/api/surveys/$sid/settings/" 200 '{"hide_progressbar": true}' | jq -c '{hide_progressbar}'

# 3. A personalised link: a variable (variable_source is required; 0 is the
#    query string), then a link that carries its value, sealed.
call POST "/api/surveys/$sid/variables/" 201 '{"name": "team", "variable_source": 0}' >/dev/null
link=$(call POST "/api/surveys/$sid/variables/hashes/" 200 '{"values": [{"team": "blue"}]}' | jq -r '.urls[0]')
echo "Personalised link: $link"

# 4. Answering through the API: a session (here opened with the link's token),
#    then the response under an Idempotency-Key; sent twice, it is recorded once.
session=$(call POST "/api/public/surveys/$slug/sessions/" 201 "{\"qs\": \"${link##*qs=}\"}" | jq -r .session)
response="{\"session\": \"$session\", \"answers\": {\"$q1\": [$soup], \"$q2\": \"Bread, please\"}}"
first=$(call POST "/api/public/surveys/$slug/responses/" 201 "$response" -H "Idempotency-Key: lunch-$sid-1")
again=$(call POST "/api/public/surveys/$slug/responses/" 201 "$response" -H "Idempotency-Key: lunch-$sid-1")
[ "$(jq -r .id <<<"$first")" = "$(jq -r .id <<<"$again")" ] || { echo "the retry made a second response" >&2; exit 1; }

# 5. The owner's view: the response with its variable, then the survey's count,
#    which the tally adds from the table's stream a second or two later.
call GET "/api/surveys/$sid/responses/" 200 | jq -c '.results[0] | {id, answers, variables}'
for try in $(seq 120); do
  count=$(call GET "/api/v2/surveys/$sid/" 200 | jq -r .submitted_responses)
  [ "$count" = 1 ] && break
  [ "$try" = 120 ] && { echo "submitted_responses is still $count after 2 minutes" >&2; exit 1; }
  sleep 1
done
echo "submitted_responses: $count"

# 6. The hosted page and the public report, for a browser.
call GET "/s/$slug/" 200 >/dev/null
call GET "/r/$report/" 200 >/dev/null
echo "Survey page: $BASE/s/$slug/"
echo "Report:      $BASE/r/$report/"
