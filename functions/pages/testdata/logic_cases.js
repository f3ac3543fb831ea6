// Runs shared/survey/testdata/conditions_cases.json through web/logic.js:
// node logic_cases.js <logic.js> <cases.json>. Prints one JSON line per
// failing case and exits 1 when any fails; prints the count passed.
"use strict";
const fs = require("fs");
const path = require("path");
const logic = require(path.resolve(process.argv[2]));
const cases = JSON.parse(fs.readFileSync(process.argv[3], "utf8")).cases;
let failed = 0;
for (const c of cases) {
  const qs = c.questions.map((q) => ({ id: q.id, type: q.type, group: q.group || 0, conditions: q.conditions || [] }));
  const shown = logic.shown(qs, c.answers);
  const got = qs.filter((q) => shown[q.id]).map((q) => q.id);
  if (JSON.stringify(got) !== JSON.stringify(c.shown)) {
    failed++;
    console.log(JSON.stringify({ name: c.name, got: got, want: c.shown }));
  }
}
console.log(JSON.stringify({ passed: cases.length - failed, failed: failed }));
process.exit(failed ? 1 : 0);
