// Display conditions (contract section 15): the same algorithm as
// shared/survey/conditions_eval.go, step for step; both pass every case of
// shared/survey/testdata/conditions_cases.json. Loaded before app.js in the
// page (window.SurveyLogic) and by node in the Go tests (module.exports).
(function (root) {
  "use strict";
  var AND = 1, OR = 2;
  // Go's unicode.IsSpace: JavaScript's trim also takes U+FEFF and leaves U+0085.
  var SPACE = "[\\t\\n\\v\\f\\r \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]";
  var TRIM = new RegExp("^" + SPACE + "+|" + SPACE + "+$", "g");
  var DECIMAL = /^[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)$/;

  function trim(s) { return s.replace(TRIM, ""); }

  // fold lowers each code point on its own (no final sigma), keeping the
  // first code point of a lowering into several, as Go's unicode.ToLower.
  function fold(s) {
    s = trim(s);
    if (!/[^\x00-\x7f]/.test(s)) return s.toLowerCase();
    var out = "";
    for (var ch of s) { var l = ch.toLowerCase(); out += String.fromCodePoint(l.codePointAt(0)); }
    return out;
  }

  // decimal reads s as a decimal number, or null: Persian and Arabic-Indic
  // digits and the Arabic decimal separator read as ASCII.
  function decimal(s) {
    if (typeof s !== "string") return null;
    s = trim(s);
    if (s.length > 400) return null;
    s = s.replace(/[\u06f0-\u06f9]/g, function (d) { return String.fromCharCode(d.charCodeAt(0) - 0x06f0 + 48); })
      .replace(/[\u0660-\u0669]/g, function (d) { return String.fromCharCode(d.charCodeAt(0) - 0x0660 + 48); })
      .replace(/\u066b/g, ".");
    return DECIMAL.test(s) ? parseFloat(s) : null;
  }

  function blank(v) {
    if (v === null || v === undefined) return true;
    if (typeof v === "string") return trim(v) === "";
    if (Array.isArray(v)) return v.length === 0;
    if (typeof v === "object") return Object.keys(v).length === 0;
    return false;
  }

  // value reads an answer of type t once for the rules, or null for none.
  function value(t, v) {
    if (blank(v)) return null;
    var a = { ids: [], num: 0, numOK: false, text: "", matrix: {} };
    switch (t) {
      case 2:
        if (typeof v !== "string") return null;
        a.text = fold(v);
        var n = decimal(v);
        if (n !== null) { a.num = n; a.numOK = true; }
        break;
      case 3: case 4: case 5:
        if (!Array.isArray(v)) return null;
        a.ids = v.map(Number);
        break;
      case 10: a.ids = [Number(v)]; break;
      case 6: case 7:
        if (typeof v !== "number") return null;
        a.num = v; a.numOK = true;
        break;
      case 12:
        if (typeof v !== "object" || Array.isArray(v)) return null;
        Object.keys(v).forEach(function (k) { a.matrix[k] = Number(v[k]); });
        break;
    }
    return a;
  }

  function takesChoices(t) { return t === 3 || t === 4 || t === 5 || t === 10; }

  function equals(rule, first, a) {
    var s = rule.second_operand;
    if (!s) return false;
    if (first.type === 12) {
      if (s.id == null || s.value == null) return false;
      var col = decimal(s.value), got = a.matrix[String(s.id)];
      return col !== null && got !== undefined && got === col;
    }
    if (takesChoices(first.type)) return s.id != null && a.ids.length === 1 && a.ids[0] === s.id;
    if (first.type === 2) return s.value != null && a.text === fold(s.value);
    if (s.value == null || !a.numOK) return false;
    var v = decimal(s.value);
    return v !== null && a.num === v;
  }

  // holds evaluates one rule; a is null without an answer (or when its
  // question is hidden): then only 9, 2 and 11 hold.
  function holds(rule, first, a) {
    var op = rule.arithmetic_operator, s = rule.second_operand;
    if (a === null || !first) return op === 9 || op === 2 || op === 11;
    switch (op) {
      case 8: return true;
      case 9: return false;
      case 1: return equals(rule, first, a);
      case 2: return !equals(rule, first, a);
      case 10: case 11:
        var inside = !!s && s.id != null && a.ids.indexOf(s.id) >= 0;
        return inside === (op === 10);
      case 7: return !!s && s.value != null && a.text.indexOf(fold(s.value)) >= 0;
      case 3: case 4: case 5: case 6:
        if (!s || s.value == null || !a.numOK) return false;
        var v = decimal(s.value);
        if (v === null) return false;
        return op === 3 ? a.num < v : op === 4 ? a.num <= v : op === 5 ? a.num > v : a.num >= v;
    }
    return false;
  }

  // shown decides which of questions (display order: [{id, type, group,
  // conditions}]) are shown for answers ({"<id>": canonical answer}): an
  // object id -> true for the shown ones.
  function shown(questions, answers) {
    var out = {}, byID = {}, parsed = {};
    questions.forEach(function (q) { byID[q.id] = q; });
    function read(id) {
      if (Object.prototype.hasOwnProperty.call(parsed, id)) return parsed[id];
      var q = byID[id], a = null;
      if (q && out[id] && Object.prototype.hasOwnProperty.call(answers, String(id))) a = value(q.type, answers[String(id)]);
      parsed[id] = a;
      return a;
    }
    questions.forEach(function (q) {
      if (q.group && byID[q.group] && !out[q.group]) return;
      var rules = q.conditions || [], run = true, any = false;
      if (!rules.length) { out[q.id] = true; return; }
      for (var i = 0; i < rules.length; i++) {
        var r = rules[i];
        if (i > 0 && r.logical_operator === OR) {
          if (run) { any = true; break; }
          run = true;
        }
        if (run) run = holds(r, byID[r.first_operand], read(r.first_operand));
      }
      if (any || run) out[q.id] = true;
    });
    return out;
  }

  var api = { shown: shown, decimal: decimal, fold: fold, AND: AND, OR: OR };
  if (typeof module !== "undefined" && module.exports) module.exports = api;
  else root.SurveyLogic = api;
})(this);
