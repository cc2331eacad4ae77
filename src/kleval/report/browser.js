// kleval sample browser: filters over per-(checkpoint, task) data files loaded on demand.
// Data files are scripts (file:// pages cannot fetch()); every string from them is put into the
// page with textContent / createTextNode, never as HTML.
(function () {
  "use strict";
  var INDEX = JSON.parse(document.getElementById("kleval-sample-index").textContent);
  var PAGE = 200;  // rows rendered at once; "show more" adds the next page
  var loaded = {}, waiting = {};
  var state = {rows: [], shown: 0};
  var byLabel = {};
  INDEX.checkpoints.forEach(function (c) { byLabel[c.label] = c; });

  function $(id) { return document.getElementById(id); }
  function el(tag, cls, text) {
    var node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }
  function key(label, task) { return label + "\u0000" + task; }

  window.kleval_samples = function (label, task, data) {
    var k = key(label, task);
    loaded[k] = data;
    (waiting[k] || []).forEach(function (done) { done(); });
    delete waiting[k];
  };

  function load(label, task) {
    var k = key(label, task);
    var file = (INDEX.files[label] || {})[task];
    return new Promise(function (resolve, reject) {
      if (!file) { resolve(null); return; }
      if (loaded[k]) { resolve(loaded[k]); return; }
      var first = !waiting[k];
      (waiting[k] = waiting[k] || []).push(function () { resolve(loaded[k]); });
      if (!first) return;
      var script = document.createElement("script");
      script.src = file.src;
      script.onerror = function () { reject(new Error("could not load " + file.src)); };
      document.head.appendChild(script);
    });
  }

  function option(select, value, text) {
    var o = el("option", null, text);
    o.value = value;
    select.appendChild(o);
  }
  function unique(values) {
    return values.filter(function (v, i) { return values.indexOf(v) === i; });
  }
  function configs() { return unique(INDEX.checkpoints.map(function (c) { return c.config; })); }

  function setup() {
    INDEX.tasks.forEach(function (t) { option($("sb-task"), t, t + " (" + (INDEX.splits[t] || "") + ")"); });
    option($("sb-config"), "", "all configurations");
    option($("sb-compare"), "", "(none)");
    configs().forEach(function (c) { option($("sb-config"), c, c); option($("sb-compare"), c, c); });
    option($("sb-step"), "final", "last step (as in the table)");
    option($("sb-step"), "all", "all steps");
    var steps = unique(INDEX.checkpoints.map(function (c) { return c.step; }).filter(function (s) { return s !== null; }));
    steps.sort(function (a, b) { return a - b; }).forEach(function (s) { option($("sb-step"), String(s), "step " + s); });
    option($("sb-status"), "", "any status");
    INDEX.statuses.forEach(function (s) { option($("sb-status"), s, s.replace("_", " ")); });
    ["sb-task", "sb-config", "sb-step", "sb-status", "sb-compare", "sb-only-diff"].forEach(function (id) {
      $(id).addEventListener("change", refresh);
    });
    $("sb-more").addEventListener("click", renderMore);
    window.addEventListener("hashchange", fromHash);
    if (!fromHash()) refresh();
  }

  function stepMatches(c, step) {
    if (step === "all") return true;
    if (step === "final") return c.final;
    return c.step !== null && String(c.step) === step;
  }
  function chosen(config) {
    var step = $("sb-step").value;
    return INDEX.checkpoints.filter(function (c) {
      return (!config || c.config === config) && stepMatches(c, step);
    });
  }
  function sampleMatches(s, status) {
    return !status || s.status === status || (status === "truncated" && s.truncated);
  }

  function refresh() {
    var task = $("sb-task").value, config = $("sb-config").value, compare = $("sb-compare").value;
    var status = $("sb-status").value;
    $("sb-only-diff-label").style.display = compare ? "" : "none";
    $("sb-count").textContent = "loading...";
    var sides = compare ? [chosen(config), chosen(compare)] : [chosen(config)];
    if (compare && !config) {
      $("sb-count").textContent = "choose a configuration to compare with " + compare;
      state.rows = []; state.shown = 0; clear($("sb-list")); $("sb-more").style.display = "none";
      return Promise.resolve();
    }
    var labels = unique(sides[0].concat(sides[1] || []).map(function (c) { return c.label; }));
    return Promise.all(labels.map(function (l) { return load(l, task); })).then(function () {
      state.rows = compare ? compareRows(task, sides, status) : pairRows(task, sides[0], status);
      var samples = state.rows.reduce(function (n, r) { return n + r.matching; }, 0);
      $("sb-count").textContent = compare
        ? state.rows.length + " problems, " + samples + " matching samples of " + config
        : state.rows.length + " problem \u00d7 checkpoint pairs, " + samples + " matching samples";
      state.shown = 0;
      clear($("sb-list"));
      renderMore();
    }, function (error) { $("sb-count").textContent = String(error.message); });
  }

  function pairRows(task, checkpoints, status) {
    var rows = [];
    checkpoints.forEach(function (c) {
      var data = loaded[key(c.label, task)];
      if (!data) return;
      data.problems.forEach(function (p) {
        var matching = p.samples.filter(function (s) { return sampleMatches(s, status); }).length;
        if (matching) rows.push({task: task, problem: p, checkpoints: [c], matching: matching});
      });
    });
    return rows;
  }

  function problemsOf(task, checkpoints) {
    var found = {};
    checkpoints.forEach(function (c) {
      var data = loaded[key(c.label, task)];
      if (!data) return;
      data.problems.forEach(function (p) { (found[p.id] = found[p.id] || []).push({c: c, p: p}); });
    });
    return found;
  }
  function solved(entries) {
    return (entries || []).some(function (e) { return e.p.samples.some(function (s) { return s.status === "correct"; }); });
  }

  function compareRows(task, sides, status) {
    var a = problemsOf(task, sides[0]), b = problemsOf(task, sides[1]);
    var onlyDiff = $("sb-only-diff").checked, rows = [];
    Object.keys(a).sort().forEach(function (id) {
      if (!b[id]) return;
      if (onlyDiff && !(solved(a[id]) && !solved(b[id]))) return;
      var matching = 0;
      a[id].forEach(function (e) { matching += e.p.samples.filter(function (s) { return sampleMatches(s, status); }).length; });
      if (!matching) return;
      rows.push({task: task, problem: a[id][0].p, compare: true, matching: matching,
                 sides: [a[id], b[id]].map(function (entries) {
                   return entries.map(function (e) { return summary(e.p); }).join(", ");
                 }),
                 checkpoints: a[id].map(function (e) { return e.c; }).concat(b[id].map(function (e) { return e.c; }))});
    });
    return rows;
  }

  function clear(node) { while (node.firstChild) node.removeChild(node.firstChild); }

  function summary(problem) {
    var n = problem.samples.length;
    var correct = problem.samples.filter(function (s) { return s.status === "correct"; }).length;
    return correct + "/" + n + " correct";
  }

  function renderMore() {
    var body = $("sb-list");
    var end = Math.min(state.rows.length, state.shown + PAGE);
    for (var i = state.shown; i < end; i++) {
      var row = state.rows[i], tr = el("tr", "sb-row");
      tr.dataset.problem = row.problem.id;
      tr.appendChild(el("td", "sb-id", row.problem.id));
      if (row.compare) {
        tr.appendChild(el("td", null, $("sb-config").value + " vs " + $("sb-compare").value));
        tr.appendChild(el("td", null, ""));
        tr.appendChild(el("td", null, row.sides[0] + " vs " + row.sides[1]));
      } else {
        var c = row.checkpoints[0];
        tr.dataset.checkpoint = c.label;
        tr.appendChild(el("td", null, c.config + " \u00b7 " + c.label));
        tr.appendChild(el("td", null, c.step === null ? "" : c.step));
        tr.appendChild(el("td", null, summary(row.problem)));
      }
      tr.addEventListener("click", openRow.bind(null, row));
      body.appendChild(tr);
    }
    state.shown = end;
    $("sb-more").style.display = state.shown < state.rows.length ? "" : "none";
  }

  function openRow(row) {
    if (row.compare) {
      var a = $("sb-config").value, b = $("sb-compare").value;
      showProblem(row.task, row.problem.id, [a, b].map(function (config) {
        return {title: config, checkpoints: row.checkpoints.filter(function (c) { return c.config === config; })};
      }));
    } else {
      showProblem(row.task, row.problem.id, [{title: row.checkpoints[0].config, checkpoints: row.checkpoints}]);
    }
  }

  function findProblem(label, task, id) {
    var data = loaded[key(label, task)];
    if (!data) return null;
    for (var i = 0; i < data.problems.length; i++) if (data.problems[i].id === id) return data.problems[i];
    return null;
  }

  function showProblem(task, id, columns) {
    var detail = $("sb-detail");
    clear(detail);
    var first = null;
    columns.forEach(function (col) { col.checkpoints.forEach(function (c) { first = first || findProblem(c.label, task, id); }); });
    detail.appendChild(el("h3", null, task + " / " + id));
    if (first && first.prompt !== null && first.prompt !== undefined) {
      detail.appendChild(el("div", "sb-label", "prompt"));
      detail.appendChild(el("pre", "sb-prompt", first.prompt));
    }
    if (first && first.gold !== null && first.gold !== undefined) {
      var gold = el("div", "sb-gold", "gold: ");
      gold.appendChild(el("code", null, first.gold));
      detail.appendChild(gold);
    }
    var grid = el("div", "sb-columns");
    var status = $("sb-status").value;
    columns.forEach(function (col) {
      var side = el("div", "sb-side");
      side.dataset.config = col.title;
      side.appendChild(el("h4", null, col.title));
      col.checkpoints.forEach(function (c) {
        var problem = findProblem(c.label, task, id);
        if (!problem) return;
        side.appendChild(el("div", "sb-ckpt", c.label + (c.step === null ? "" : " (step " + c.step + ")") + ": " + summary(problem)));
        problem.samples.forEach(function (s) { side.appendChild(sampleCard(s, sampleMatches(s, status))); });
      });
      grid.appendChild(side);
    });
    detail.appendChild(grid);
    detail.style.display = "";
    detail.scrollIntoView({block: "start"});
  }

  function sampleCard(s, matching) {
    var card = el("div", "sb-sample" + (matching ? "" : " sb-dim"));
    card.dataset.status = s.status;
    var head = el("div", "sb-head");
    head.appendChild(el("span", "sb-badge sb-" + s.status, s.status.replace("_", " ")));
    if (s.truncated) head.appendChild(el("span", "sb-badge sb-truncated", "truncated"));
    head.appendChild(el("span", "sb-meta", "#" + s.i + (s.tokens !== null && s.tokens !== undefined ? " \u00b7 " + s.tokens + " tokens" : "") +
      (s.rule ? " \u00b7 rule: " + s.rule : "")));
    card.appendChild(head);
    if (s.why) card.appendChild(el("div", "sb-why", s.why));
    var text = el("pre", "sb-text");
    if (!s.parts) {
      text.appendChild(el("em", null, "completion not logged"));
    } else {
      text.appendChild(document.createTextNode(s.parts[0]));
      if (s.parts.length === 3) {
        text.appendChild(el("mark", "sb-answer", s.parts[1]));
        text.appendChild(document.createTextNode(s.parts[2]));
      }
    }
    card.appendChild(text);
    if (s.extracted !== null && s.extracted !== undefined && (!s.parts || s.parts.length !== 3)) {
      var ex = el("div", "sb-why", "extracted: ");
      ex.appendChild(el("code", null, s.extracted));
      card.appendChild(ex);
    }
    return card;
  }

  // #problem=TASK/ID[&checkpoint=LABEL]: open one problem (links from `kleval audit` / `kleval regress`).
  function fromHash() {
    var match = /^#problem=([^\/&]+)\/([^&]+)(?:&checkpoint=(.+))?$/.exec(window.location.hash);
    if (!match) return false;
    var task = decodeURIComponent(match[1]), id = decodeURIComponent(match[2]);
    var label = match[3] ? decodeURIComponent(match[3]) : null;
    if (INDEX.tasks.indexOf(task) === -1) return false;
    $("sb-task").value = task;
    $("sb-config").value = ""; $("sb-compare").value = ""; $("sb-status").value = ""; $("sb-step").value = "all";
    refresh().then(function () {
      var picked = INDEX.checkpoints.filter(function (c) { return !label || c.label === label; });
      var columns = configs().map(function (config) {
        return {title: config, checkpoints: picked.filter(function (c) { return c.config === config; })};
      }).filter(function (col) { return col.checkpoints.length; });
      showProblem(task, id, columns);
    });
    return true;
  }

  setup();
})();
