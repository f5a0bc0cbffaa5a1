/* gendel: figures and tables that fit the column, on a desktop and on a phone.
 *
 * Figures. Every plotly figure of the book calls gendelFigure(id) once plotly has drawn it
 * (gendel.plotting.common.FIT_TO_COLUMN_JS). The figure is sized again once the page is laid out
 * (its inline script runs before the theme's sidebar exists), and again whenever its column
 * changes width. In a column narrower than NARROW px, a figure whose panels stand side by side
 * gets one column of panels: each panel spans the width, the panels are stacked in reading order
 * (rows from the top, left to right in a row; column by column when only the top row has titles,
 * which then head columns), and what belongs to a panel moves with it: its axes, its title and
 * other annotations, shapes and images placed in paper coordinates, its colour bar. Legends,
 * sliders and menus above or below all panels keep their distance in pixels from the top or
 * bottom of the plot area; the figure grows by the height the panels need. In a wider column the
 * figure is shown as it was made.
 *
 * Titles. A title line wider than the figure is broken at spaces, also after a slider step sets
 * another title, and a legend above the plot that reaches into the title moves down with the plot.
 *
 * Tables. In a column narrower than NARROW_TABLE px, a table wider than its box is shown as one
 * card per row, each cell under its column's header (class gendel-stacked, see gendel.css).
 */
(function () {
  "use strict";
  var NARROW = 600;        // column width (px) under which side-by-side panels are stacked
  var NARROW_TABLE = 720;  // column width (px) under which a table too wide for it is stacked
  var GAP = 14;            // px between a panel's lowest label and the next panel's highest one
  var TOL = 0.005;         // paper units: how far outside a panel an element still counts as on its edge
  var LIFT = 10;           // px: the most an annotation stays above its panel once the panels are stacked
  var TITLE_TOP = 6;       // px: the least distance from a pinned title to the top of its figure

  function axisName(id) { return id.charAt(0) + "axis" + id.slice(1); }  // "x2" -> "xaxis2"

  function get(obj, path) {  // get(layout, "annotations[2].x")
    var parts = path.replace(/\[(\d+)\]/g, ".$1").split(".");
    for (var i = 0; i < parts.length; i++) {
      if (obj === undefined || obj === null) { return undefined; }
      obj = obj[parts[i]];
    }
    return obj;
  }

  function copy(v) { return v === undefined ? null : JSON.parse(JSON.stringify(v)); }

  // An axis's domain as the figure set it (plotly narrows the full layout's domain of an axis
  // constrained to an aspect ratio; the figure's own domain is the panel's box).
  function domainOf(gd, ax) {
    var own = gd.layout[ax._name] && gd.layout[ax._name].domain;
    return (own && own.length === 2 ? own : (ax._inputDomain || ax.domain)).slice();
  }

  // The panels of a figure: one per distinct pair of x and y domains of its cartesian subplots
  // that shows data (an empty slot of a grid is hidden while the panels are stacked).
  function panelsOf(gd) {
    var fl = gd._fullLayout, ids = (fl._subplots && fl._subplots.cartesian) || [], panels = [];
    var yOwner = {}, used = {};
    (gd._fullData || []).forEach(function (t) {
      if (t.visible !== false) { used[(t.xaxis || "x") + (t.yaxis || "y")] = 1; }
    });
    for (var i = 0; i < ids.length; i++) {
      var m = /^(x\d*)(y\d*)$/.exec(ids[i]);
      if (!m) { continue; }
      var xa = fl[axisName(m[1])], ya = fl[axisName(m[2])];
      if (!xa || !ya) { continue; }
      if (xa.overlaying && xa.overlaying !== "free") { xa = fl[axisName(xa.overlaying)]; }
      if (ya.overlaying && ya.overlaying !== "free") { ya = fl[axisName(ya.overlaying)]; }
      var xd = domainOf(gd, xa), yd = domainOf(gd, ya), p = null;
      for (var k = 0; k < panels.length; k++) {
        var q = panels[k];
        if (Math.abs(q.x[0] - xd[0]) < 1e-6 && Math.abs(q.x[1] - xd[1]) < 1e-6 &&
            Math.abs(q.y[0] - yd[0]) < 1e-6 && Math.abs(q.y[1] - yd[1]) < 1e-6) { p = q; }
      }
      if (!p) {
        p = {x: xd, y: yd, xaxes: {}, yaxes: {}, xids: {}, yids: {}, empty: true};
        panels.push(p);
      }
      if (used[ids[i]]) { p.empty = false; }
      p.xaxes[xa._name] = 1; p.yaxes[ya._name] = 1; p.xids[m[1]] = 1; p.yids[m[2]] = 1;
      if (yOwner[ya._name] && yOwner[ya._name] !== p) { return null; }  // one y axis in two panels: cannot stack
      yOwner[ya._name] = p;
    }
    return panels;
  }

  function columnsOf(panels) {
    var starts = {};
    (panels || []).forEach(function (p) { starts[Math.round(p.x[0] * 200)] = 1; });
    return Object.keys(starts).length;
  }

  // An element's box in px from the figure's top left corner, or null if it is not drawn.
  function box(gd, el) {
    if (!el || !el.getBoundingClientRect) { return null; }
    var g = gd.getBoundingClientRect(), r = el.getBoundingClientRect();
    if (r.width === 0 && r.height === 0) { return null; }
    return {l: r.left - g.left, r: r.right - g.left, t: r.top - g.top, b: r.bottom - g.top};
  }

  function union(boxes) {
    var out = null;
    boxes.forEach(function (b) {
      if (!b) { return; }
      out = out ? {l: Math.min(out.l, b.l), r: Math.max(out.r, b.r), t: Math.min(out.t, b.t), b: Math.max(out.b, b.b)} : b;
    });
    return out;
  }

  // The panel an element at paper coordinates (x, y) belongs to, or null for an element above or
  // below all panels (a legend, a slider, a note under the figure).
  function owner(panels, x, y) {
    var top = Math.max.apply(null, panels.map(function (p) { return p.y[1]; }));
    var bottom = Math.min.apply(null, panels.map(function (p) { return p.y[0]; }));
    if (y > top + TOL || y < bottom - TOL) { return null; }
    var best = null, bestD = Infinity;
    panels.forEach(function (p) {
      var dx = x < p.x[0] - TOL ? p.x[0] - x : (x > p.x[1] + TOL ? x - p.x[1] : 0);
      var dy = y < p.y[0] ? p.y[0] - y : (y > p.y[1] ? y - p.y[1] : 0);
      var d = dx * 10 + dy;  // the column first, then the row
      if (d < bestD) { bestD = d; best = p; }
    });
    return best;
  }

  // Height over width of a panel whose axes keep a scale ratio (scaleanchor), else 0.
  function aspectOf(fl, p) {
    var xs = Object.keys(p.xaxes), ys = Object.keys(p.yaxes);
    if (xs.length !== 1 || ys.length !== 1) { return 0; }
    var xa = fl[xs[0]], ya = fl[ys[0]];
    var tied = (ya.scaleanchor && ya.scaleanchor === xa._id) || (xa.scaleanchor && xa.scaleanchor === ya._id);
    if (!tied || !xa.range || !ya.range) { return 0; }
    var ratio = ya.scaleanchor === xa._id ? (ya.scaleratio || 1) : 1 / (xa.scaleratio || 1);
    var dx = Math.abs(xa.r2l(xa.range[1]) - xa.r2l(xa.range[0])), dy = Math.abs(ya.r2l(ya.range[1]) - ya.r2l(ya.range[0]));
    return dx > 0 ? ratio * dy / dx : 0;
  }

  // The layout and trace changes that stack the panels of gd, and the values they replace.
  function stackPlan(gd, all) {
    var fl = gd._fullLayout, lay = gd.layout, s = fl._size;
    var panels = all.filter(function (p) { return !p.empty; }), empty = all.filter(function (p) { return p.empty; });
    var pw = s.w, ph = s.h, H = fl.height;
    if (!(pw > 0 && ph > 0)) { return null; }
    panels.sort(function (a, b) { return (Math.round(b.y[1] * 1000) - Math.round(a.y[1] * 1000)) || (a.x[0] - b.x[0]); });
    var top = Math.max.apply(null, panels.map(function (p) { return p.y[1]; }));
    var bottom = Math.min.apply(null, panels.map(function (p) { return p.y[0]; }));
    var px = function (p) {  // a panel's box in figure px
      return {l: s.l + p.x[0] * pw, r: s.l + p.x[1] * pw, t: s.t + (1 - p.y[1]) * ph, b: s.t + (1 - p.y[0]) * ph};
    };
    panels.forEach(function (p) { p.box = px(p); p.above = 0; p.below = 0; p.left = 0; p.right = 0; });

    // what each panel carries: axis labels and titles, and the annotations placed near it
    var anns = lay.annotations || [], annOwner = [];
    anns.forEach(function (a, i) {
      var fa = fl.annotations[i] || a;
      var xr = fa.xref || "paper", yr = fa.yref || "paper", p = null;
      if (xr === "paper" && yr === "paper") {
        p = owner(panels, fa.x, fa.y);
      } else {  // placed on a panel's axes or domain: it moves with them
        var xid = xr.split(" ")[0], yid = yr.split(" ")[0];
        panels.forEach(function (q) { if (q.xids[xid] || q.yids[yid]) { p = p || q; } });
      }
      annOwner.push(p);
    });
    // A row of titles above the top panels (make_subplots puts them at the top of the grid's cells,
    // which may lie well above a panel whose box was narrowed): two or more annotations at one
    // height above all panels, each over the middle of a different top-row panel, are those
    // panels' titles.
    var rows = {};
    anns.forEach(function (a, i) {
      var fa = fl.annotations[i] || a;
      if (annOwner[i] || (fa.xref || "paper") !== "paper" || (fa.yref || "paper") !== "paper" || !(fa.y > top)) { return; }
      (rows[Math.round(fa.y * 1000)] = rows[Math.round(fa.y * 1000)] || []).push(i);
    });
    Object.keys(rows).forEach(function (y) {
      var row = rows[y], hit = row.map(function (i) {
        var x = (fl.annotations[i] || anns[i]).x, best = null;
        panels.forEach(function (p) {
          if (Math.abs(p.y[1] - top) < 0.02 && Math.abs(x - (p.x[0] + p.x[1]) / 2) < (p.x[1] - p.x[0]) / 4) { best = p; }
        });
        return best;
      });
      var distinct = hit.filter(function (p, k) { return p && hit.indexOf(p) === k; });
      if (row.length >= 2 && distinct.length === row.length) { row.forEach(function (i, k) { annOwner[i] = hit[k]; }); }
    });
    // Titles over the top row only (column headers, as "λ = 0.5" over a column of maps): the
    // panels are stacked column by column, so that each column's panels stay together.
    var titled = panels.map(function (p) {
      return anns.some(function (a, i) { return annOwner[i] === p && (fl.annotations[i] || a).y >= p.y[1] - TOL; });
    });
    var rowsOfPanels = {};
    panels.forEach(function (p) { rowsOfPanels[Math.round(p.y[1] * 1000)] = 1; });
    var onTop = function (p) { return Math.round(p.y[1] * 1000) === Math.round(top * 1000); };
    if (Object.keys(rowsOfPanels).length > 1 && panels.every(function (p, k) { return titled[k] === onTop(p); })) {
      panels.sort(function (a, b) { return (Math.round(a.x[0] * 1000) - Math.round(b.x[0] * 1000)) || (Math.round(b.y[1] * 1000) - Math.round(a.y[1] * 1000)); });
    }
    // An annotation above its panel sits at most LIFT px above it once the panels are stacked.
    var lift = anns.map(function (a, i) {
      var fa = fl.annotations[i] || a, p = annOwner[i];
      if (!p || (fa.yref || "paper") !== "paper" || !(fa.y > p.y[1])) { return 0; }
      return Math.max(0, (fa.y - p.y[1]) * ph - LIFT);
    });
    panels.forEach(function (p) {
      var parts = [];
      Object.keys(p.xids).forEach(function (id) {
        parts.push(union(Array.prototype.map.call(gd.querySelectorAll("g." + id + "tick text"), function (t) { return box(gd, t); })));
        parts.push(box(gd, gd.querySelector("text." + id + "title")));
      });
      Object.keys(p.yids).forEach(function (id) {
        parts.push(union(Array.prototype.map.call(gd.querySelectorAll("g." + id + "tick text"), function (t) { return box(gd, t); })));
        parts.push(box(gd, gd.querySelector("text." + id + "title")));
      });
      anns.forEach(function (a, i) {
        var b = annOwner[i] === p ? box(gd, gd.querySelector('g.annotation[data-index="' + i + '"]')) : null;
        if (b) { parts.push({l: b.l, r: b.r, t: b.t + lift[i], b: b.b + lift[i]}); }
      });
      var u = union(parts);
      if (u) {
        p.above = Math.max(0, p.box.t - u.t);
        p.below = Math.max(0, u.b - p.box.b);
        p.left = Math.max(0, p.box.l - u.l);
        p.right = Math.max(0, u.r - p.box.r);
      }
    });
    var bars = union(Array.prototype.map.call(gd.querySelectorAll("g.colorbar"), function (c) { return box(gd, c); }));
    var barW = bars ? bars.r - bars.l + 8 : 0;
    var needL = Math.max.apply(null, panels.map(function (p) { return p.left; }));
    var needR = Math.max(barW, Math.max.apply(null, panels.map(function (p) { return p.right; })));
    var X0 = Math.min(0.3, Math.max(0, needL - s.l) / pw), X1 = 1 - Math.min(0.3, Math.max(0, needR - s.r) / pw);
    var wNew = (X1 - X0) * pw;

    // the new rows, in px from the top of the plot area
    var cursor = (1 - top) * ph;
    panels.forEach(function (p, k) {
      var w0 = (p.x[1] - p.x[0]) * pw, h0 = (p.y[1] - p.y[0]) * ph;
      var h = Math.min(wNew * h0 / w0, Math.max(h0, 0.9 * wNew)), aspect = aspectOf(fl, p);
      if (aspect) { h = Math.min(wNew * aspect, 1.2 * wNew); }  // a map with equal scales: no blank band
      if (k > 0) { cursor += panels[k - 1].below + p.above + GAP; }
      p.top = cursor; p.h = Math.max(h, 100); cursor += p.h;
    });
    var phNew = cursor + bottom * ph, Hnew = H - ph + phNew;
    panels.forEach(function (p) { p.Y1 = 1 - p.top / phNew; p.Y0 = 1 - (p.top + p.h) / phNew; });

    function mapX(p, x) {
      if (x < p.x[0]) { return X0 - (p.x[0] - x); }  // pixel offsets: the figure keeps its width
      if (x > p.x[1]) { return X1 + (x - p.x[1]); }
      return X0 + (x - p.x[0]) / (p.x[1] - p.x[0]) * (X1 - X0);
    }
    function mapY(p, y) {
      if (!p) {  // above or below every panel: the same px from the top or bottom of the plot area
        return y >= (top + bottom) / 2 ? 1 - (1 - y) * ph / phNew : y * ph / phNew;
      }
      if (y > p.y[1]) { return p.Y1 + (y - p.y[1]) * ph / phNew; }
      if (y < p.y[0]) { return p.Y0 - (p.y[0] - y) * ph / phNew; }
      return p.Y0 + (y - p.y[0]) / (p.y[1] - p.y[0]) * (p.Y1 - p.Y0);
    }
    function mapContainerY(y) { return y >= 0.5 ? 1 - (1 - y) * H / Hnew : y * H / Hnew; }

    // An axis that hides its tick labels because a neighbour with the same range shows them
    // (maps side by side) shows its own once the neighbour is no longer beside it.
    function sharedRange(n) {
      var ax = fl[n];
      if (!ax.range || !ax.showgrid && !ax.ticks && ax.visible === false) { return false; }
      return Object.keys(fl).some(function (m) {
        var other = fl[m];
        return m !== n && m.charAt(0) === n.charAt(0) && /^[xy]axis\d*$/.test(m) && other && other.range &&
          other.showticklabels !== false && other.visible !== false &&
          Math.abs(other.range[0] - ax.range[0]) + Math.abs(other.range[1] - ax.range[1]) < 1e-9 * (1 + Math.abs(ax.range[1]));
      });
    }
    var L = {height: Hnew};
    empty.forEach(function (p) {
      Object.keys(p.xaxes).concat(Object.keys(p.yaxes)).forEach(function (n) { L[n + ".visible"] = false; });
    });
    panels.forEach(function (p) {
      Object.keys(p.xaxes).forEach(function (n) { L[n + ".domain"] = [X0, X1]; });
      Object.keys(p.yaxes).forEach(function (n) { L[n + ".domain"] = [p.Y0, p.Y1]; });
      Object.keys(p.xaxes).concat(Object.keys(p.yaxes)).forEach(function (n) {
        if (lay[n] && lay[n].showticklabels === false && (fl[n].matches || sharedRange(n))) { L[n + ".showticklabels"] = true; }
      });
    });
    anns.forEach(function (a, i) {
      var fa = fl.annotations[i] || a, p = annOwner[i];
      if ((fa.xref || "paper") === "paper" && p) { L["annotations[" + i + "].x"] = mapX(p, fa.x); }
      if ((fa.yref || "paper") === "paper") { L["annotations[" + i + "].y"] = mapY(p, fa.y) - lift[i] / phNew; }
    });
    ["shapes", "images"].forEach(function (kind) {
      (lay[kind] || []).forEach(function (sh, i) {
        var f = (fl[kind] || [])[i] || sh, xr = f.xref || "paper", yr = f.yref || "paper";
        if (kind === "shapes") {
          var p = owner(panels, (f.x0 + f.x1) / 2, (f.y0 + f.y1) / 2);
          if (xr === "paper" && p) { L[kind + "[" + i + "].x0"] = mapX(p, f.x0); L[kind + "[" + i + "].x1"] = mapX(p, f.x1); }
          if (yr === "paper") { L[kind + "[" + i + "].y0"] = mapY(p, f.y0); L[kind + "[" + i + "].y1"] = mapY(p, f.y1); }
        } else {
          var q = owner(panels, f.x, f.y);
          if (xr === "paper" && q) { L[kind + "[" + i + "].x"] = mapX(q, f.x); }
          if (yr === "paper") { L[kind + "[" + i + "].y"] = mapY(q, f.y); }
        }
      });
    });
    Object.keys(fl).forEach(function (key) {
      if (!/^legend\d*$/.test(key) || !fl[key] || typeof fl[key] !== "object" || fl[key].visible === false) { return; }
      var lg = fl[key];
      if (lg.yref === "container") {
        L[key + ".y"] = mapContainerY(lg.y);
      } else {
        var p = lg.x >= 1 ? null : owner(panels, lg.x, lg.y);
        L[key + ".y"] = mapY(p, lg.y);
        if (p) { L[key + ".x"] = mapX(p, lg.x); }
      }
    });
    ["sliders", "updatemenus"].forEach(function (kind) {
      (lay[kind] || []).forEach(function (sl, i) {
        var f = (fl[kind] || [])[i] || sl;
        if (typeof f.y === "number") { L[kind + "[" + i + "].y"] = mapY(null, f.y); }
      });
    });
    if (lay.title && typeof lay.title === "object" && typeof lay.title.y === "number") {
      L["title.y"] = lay.title.yref === "paper" ? mapY(null, lay.title.y) : mapContainerY(lay.title.y);
    }

    // colour bars: beside the first panel that shows the trace (or colour axis) they belong to
    var traces = [], perTrace = [];
    function bar(prefix, p, into) {
      into[prefix + ".x"] = X1 + 8 / pw; into[prefix + ".xanchor"] = "left"; into[prefix + ".xref"] = "paper";
      into[prefix + ".y"] = (p.Y0 + p.Y1) / 2; into[prefix + ".yanchor"] = "middle"; into[prefix + ".yref"] = "paper";
      into[prefix + ".len"] = p.Y1 - p.Y0; into[prefix + ".lenmode"] = "fraction";
    }
    function panelOf(trace) {
      var xid = trace.xaxis || "x", yid = trace.yaxis || "y", out = null;
      panels.forEach(function (p) { if (!out && p.xids[xid] && p.yids[yid]) { out = p; } });
      return out;
    }
    var axisPanel = {};
    (gd._fullData || []).forEach(function (t) {
      var p = panelOf(t);
      if (!p) { return; }
      if (t.coloraxis) {
        var q = axisPanel[t.coloraxis];
        if (!q || panels.indexOf(p) < panels.indexOf(q)) { axisPanel[t.coloraxis] = p; }
        return;
      }
      var prefix = t.showscale ? "colorbar" : (t.marker && t.marker.showscale ? "marker.colorbar" : null);
      if (!prefix) { return; }
      var one = {};
      bar(prefix, p, one);
      traces.push(t.index);
      perTrace.push(one);
    });
    Object.keys(axisPanel).forEach(function (ca) {
      if (fl[ca] && fl[ca].showscale !== false) { bar(ca + ".colorbar", axisPanel[ca], L); }
    });
    var data = {};
    perTrace.forEach(function (one) { Object.keys(one).forEach(function (k) { data[k] = []; }); });
    Object.keys(data).forEach(function (k) { data[k] = perTrace.map(function (one) { return one[k]; }); });

    // what the changes replace, to show the figure as it was made in a wider column
    var undoL = {}, undoD = {};
    Object.keys(L).forEach(function (k) { undoL[k] = copy(get(lay, k)); });
    if (undoL.height === null) { undoL.height = H; }
    Object.keys(data).forEach(function (k) { undoD[k] = traces.map(function (i) { return copy(get(gd.data[i], k)); }); });
    return {layout: L, data: data, traces: traces, undoLayout: undoL, undoData: undoD};
  }

  function update(gd, data, layout, traces) {
    // plotly's HTML wraps a figure in a box of the figure's height in px: it follows the figure
    var box = gd.parentElement;
    if (box && /px$/.test(box.style.height) && typeof layout.height === "number") { box.style.height = layout.height + "px"; }
    return (traces.length ? window.Plotly.update(gd, data, layout, traces) : window.Plotly.relayout(gd, layout))
      .then(keepWidthFree(gd));
  }

  // plotly fixes a figure's width when its height is set ("no autosize in one dimension only"),
  // after which the figure no longer follows its column: the width is let free again.
  function keepWidthFree(gd) {
    return function (result) {
      if (gd.layout) { delete gd.layout.width; }
      return result;
    };
  }

  // ---- titles that fit a narrow figure ---------------------------------------------------------
  // A title line wider than the figure is broken at spaces (plotly keeps a <span>'s style across
  // a <br>); the top margin and the figure grow by the lines added, and legends placed under the
  // title (in container coordinates) move down with it. A slider step that sets another title
  // gets it broken too.

  function breakLine(html, pieces) {  // html broken at spaces outside tags into about `pieces` lines
    var tokens = html.split(/(<[^>]*>)/), visible = 0;
    tokens.forEach(function (t, k) { if (k % 2 === 0) { visible += t.replace(/&[a-z#0-9]+;/gi, "x").length; } });
    var target = visible / pieces, count = 0, out = "";
    tokens.forEach(function (t, k) {
      if (k % 2 === 1) { out += t; return; }
      t.split(/( +)/).forEach(function (w) {
        var n = w.replace(/&[a-z#0-9]+;/gi, "x").length;
        if (/^ +$/.test(w)) { out += w; return; }
        if (count > 0 && count + n > target * 1.05) { out = out.replace(/ +$/, "") + "<br>"; count = 0; }
        out += w; count += n;
      });
    });
    return out;
  }

  function titleText(lay) {
    return lay.title && typeof lay.title === "object" ? lay.title.text : lay.title;
  }

  function wrapPlan(gd) {
    var fl = gd._fullLayout, text = titleText(gd.layout), el = gd.querySelector("g.g-gtitle text.gtitle");
    if (!text || !el) { return null; }
    var g = gd.getBoundingClientRect(), left = el.getBoundingClientRect().left - g.left;
    var avail = fl.width - Math.max(left, 0) - 8;
    var lines = el.querySelectorAll("tspan.line"), widths = [], heights = [];
    if (lines.length) {
      Array.prototype.forEach.call(lines, function (t) { var b = t.getBBox(); widths.push(b.width); heights.push(b.height); });
    } else {
      var b0 = el.getBBox(); widths.push(b0.width); heights.push(b0.height);
    }
    var html = String(text).split(/<br\s*\/?>/i);
    if (html.length !== widths.length) { return null; }
    var added = 0, out = html.map(function (line, i) {
      if (widths[i] <= avail) { return line; }
      var broken = breakLine(line, Math.ceil(widths[i] / avail));
      added += (broken.split("<br>").length - 1) * heights[i];
      return broken;
    });
    if (!added) { return null; }
    return {text: out.join("<br>"), added: Math.ceil(added)};
  }

  function relayout(gd, layout) {
    var box = gd.parentElement;
    if (box && /px$/.test(box.style.height) && typeof layout.height === "number") { box.style.height = layout.height + "px"; }
    return window.Plotly.relayout(gd, layout).then(keepWidthFree(gd));
  }

  // Break the title of gd if it is wider than the figure; `raw` is the title as the figure set it.
  function wrap(gd, raw) {
    var fl = gd._fullLayout, lay = gd.layout, w = gd._gendelWrap;
    if (!w) {  // the layout before any line was added: what unwrap restores
      w = {raw: raw, top: copy(get(lay, "margin.t")), height: fl.height, t: fl.margin.t, legends: {}};
      Object.keys(fl).forEach(function (key) {
        if (/^legend\d*$/.test(key) && fl[key] && fl[key].yref === "container") { w.legends[key] = fl[key].y; }
      });
    }
    w.raw = raw;
    var plan = wrapPlan(gd);
    var added = plan ? plan.added : 0;
    var L = {"title.text": plan ? plan.text : raw, "margin.t": w.t + added, height: w.height + added};
    Object.keys(w.legends).forEach(function (key) {
      L[key + ".y"] = 1 - ((1 - w.legends[key]) * w.height + added) / (w.height + added);
    });
    gd._gendelWrap = w;
    gd._gendelWrapping = true;
    var apply = function (extra) {
      L["margin.t"] = w.t + extra; L.height = w.height + extra + (w.down || 0);
      if (w.titleTop !== undefined) { L["title.y"] = Math.min(1, 1 - (w.titleTop - w.titleOff) / (w.height + extra)); }
      Object.keys(w.legends).forEach(function (key) {
        L[key + ".y"] = 1 - ((1 - w.legends[key]) * w.height + extra) / (w.height + extra);
      });
      w.added = extra;
      return relayout(gd, L);
    };
    var first = (plan || w.added) ? apply(added) : Promise.resolve();
    return first.then(function () {
      // a legend above the plot, or a panel, that reaches up into the title (a legend of several
      // rows on a narrow screen, a title of several lines): the plot, and the legend with it, move down
      var title = box(gd, gd.querySelector("g.g-gtitle"));
      if (!title) { return null; }
      // a title drawn partly above the figure (plotly centres a title of many lines in the top
      // margin) is pinned TITLE_TOP px from the top: it moves down by `lower`
      var top = w.titleTop !== undefined ? w.titleTop : Math.max(title.t, TITLE_TOP);
      var lower = top - title.t, bottom = title.b + lower, push = 0;
      // what must stay under the title: legends, the panels' plot areas and their titles
      var under = [];
      Array.prototype.forEach.call(gd.querySelectorAll("g.infolayer > g"), function (el) {
        if (/^legend\d*$/.test(el.getAttribute("class") || "")) { under.push(el.querySelector("rect.bg") || el); }
      });
      Array.prototype.push.apply(under, gd.querySelectorAll("g.draglayer rect.nsewdrag, g.annotation"));
      under.forEach(function (el) {
        var b = box(gd, el);
        if (b && b.l < title.r && b.r > title.l && b.t < bottom + 4 && b.b > top) { push = Math.max(push, bottom + 4 - b.t); }
      });
      if (!(push > 0)) { return null; }
      var extra = added + Math.ceil(push);
      // the title stays where it is (plotly centres an unpinned title in the top margin)
      w.pinned = w.pinned || {"title.y": copy(get(lay, "title.y")), "title.yanchor": copy(get(lay, "title.yanchor")),
                              "title.yref": copy(get(lay, "title.yref"))};
      if (w.titleTop === undefined) {
        w.titleTop = top;
        // plotly draws a title of several lines higher than its anchor says: where the anchor of
        // a title at the top of the container is, against where its text begins
        var fl0 = gd._fullLayout, t0 = fl0.title || {};
        var anchor = (t0.yref === "container" && typeof t0.y === "number" && t0.yanchor === "top")
          ? (1 - t0.y) * fl0.height : title.t;
        w.titleOff = title.t - anchor;
      }
      L["title.yanchor"] = "top"; L["title.yref"] = "container";
      return apply(extra);
    }).then(function () {
      return lowerLegends(gd, w);
    }).then(function () { gd._gendelWrapping = false; });
  }

  // A legend under the plot that an x axis's title reaches into (a legend of several rows on a
  // narrow screen) moves down by the overlap, and the figure grows by as much at the bottom.
  function lowerLegends(gd, w, round) {
    var fl = gd._fullLayout, keys = [], down = 0;
    round = round || 0;
    var titles = Array.prototype.filter.call(gd.querySelectorAll("g.infolayer g text"), function (t) {
      return /^g-x\d*title$/.test(t.parentNode.getAttribute("class") || "");
    });
    Array.prototype.forEach.call(gd.querySelectorAll("g.infolayer > g"), function (el) {
      var key = el.getAttribute("class") || "";
      if (!/^legend\d*$/.test(key) || !fl[key] || fl[key].yref === "container" || !(fl[key].y < 0)) { return; }
      var lg = box(gd, el.querySelector("rect.bg") || el);
      if (!lg) { return; }
      titles.forEach(function (t) {
        var b = box(gd, t);
        if (b && b.l < lg.r && b.r > lg.l && b.b + 4 > lg.t && b.t < lg.b) {
          down = Math.max(down, b.b + 4 - lg.t);
          if (keys.indexOf(key) < 0) { keys.push(key); }
        }
      });
    });
    if (!(down > 0) || round > 3) { return null; }
    down = Math.ceil(down);
    w.below = w.below || {"margin.b": copy(get(gd.layout, "margin.b")), legends: {}};
    var plotH = (fl._size && fl._size.h) || (fl.height - fl.margin.t - fl.margin.b);
    var L = {"margin.b": fl.margin.b + down, height: fl.height + down};
    keys.forEach(function (key) {
      if (!(key in w.below.legends)) { w.below.legends[key] = fl[key].y; }
      L[key + ".y"] = fl[key].y - down / plotH;
    });
    w.down = (w.down || 0) + down;
    w.added = w.added || 0;
    // plotly may widen its margins for the legend (autoexpand): measure again
    return relayout(gd, L).then(function () { return lowerLegends(gd, w, round + 1); });
  }

  function unwrap(gd) {
    var w = gd._gendelWrap;
    gd._gendelWrap = null;
    if (!w || !(w.added || w.down)) { return Promise.resolve(); }
    var L = {"title.text": w.raw, "margin.t": w.top, height: w.height};
    Object.keys(w.legends).forEach(function (key) { L[key + ".y"] = w.legends[key]; });
    if (w.below) {
      L["margin.b"] = w.below["margin.b"];
      Object.keys(w.below.legends).forEach(function (key) { L[key + ".y"] = w.below.legends[key]; });
    }
    Object.keys(w.pinned || {}).forEach(function (key) { L[key] = w.pinned[key]; });
    gd._gendelWrapping = true;
    return relayout(gd, L).then(function () { gd._gendelWrapping = false; });
  }

  function onTitleChange(gd, update) {
    if (gd._gendelWrapping || !update || !gd._gendelWrap || !("title.text" in update || "title" in update)) { return; }
    wrap(gd, titleText(gd.layout));
  }

  // Size gd for its column; stack its panels in a narrow one, unstack them in a wide one.
  function fit(gd) {
    if (!gd || !window.Plotly || !gd._fullLayout || gd._gendelBusy) { return Promise.resolve(); }
    var column = gd.parentElement ? gd.parentElement.clientWidth : 0;
    if (!column || gd.offsetParent === null) { return Promise.resolve(); }  // hidden (a closed dropdown)
    var state = gd._gendel || {};
    if (state.width === column) { return Promise.resolve(); }
    gd._gendelBusy = true;
    return unwrap(gd).then(function () {
      return state.plan ? update(gd, state.plan.undoData, state.plan.undoLayout, state.plan.traces) : null;
    }).then(function () {
      return window.Plotly.Plots.resize(gd);
    }).then(function () {
      var panels = state.panels || panelsOf(gd);
      gd._gendel = {width: column, panels: panels && panels.map(function (p) {
        return {x: p.x.slice(), y: p.y.slice(), xaxes: p.xaxes, yaxes: p.yaxes, xids: p.xids, yids: p.yids, empty: p.empty};
      })};
      if (column >= NARROW || !panels || columnsOf(panels.filter(function (p) { return !p.empty; })) < 2) { return null; }
      var plan = stackPlan(gd, panels.map(function (p) {
        return {x: p.x.slice(), y: p.y.slice(), xaxes: p.xaxes, yaxes: p.yaxes, xids: p.xids, yids: p.yids, empty: p.empty};
      }));
      if (!plan) { return null; }
      gd._gendel.plan = plan;
      return update(gd, plan.data, plan.layout, plan.traces);
    }).then(function () {
      return wrap(gd, titleText(gd.layout));
    }).catch(function (e) {
      if (window.console) { console.warn("gendel: could not fit figure " + gd.id + " to its column: " + e); }
    }).then(function () {
      gd._gendelBusy = false;
      var now = gd.parentElement ? gd.parentElement.clientWidth : 0;
      if (gd._gendel && now && now !== gd._gendel.width) { return fit(gd); }  // the column changed meanwhile
      return null;
    });
  }

  var observer = window.ResizeObserver ? new ResizeObserver(function (entries) {
    entries.forEach(function (e) {
      var gd = e.target.querySelector(":scope > .js-plotly-plot");
      if (gd) { fit(gd); }
    });
  }) : null;

  window.gendelFigure = function (id) {
    var gd = document.getElementById(id);
    if (!gd) { return; }
    var start = function () {
      if (gd.on) {
        gd.on("plotly_relayout", function (u) { onTitleChange(gd, u); });
        gd.on("plotly_update", function (u) { onTitleChange(gd, u && u.layout); });
      }
      fit(gd);
      if (observer && gd.parentElement) { observer.observe(gd.parentElement); }
    };
    if (document.readyState === "complete") { start(); } else { window.addEventListener("load", start); }
  };

  // ---- tables ---------------------------------------------------------------------------------
  function label(table) {
    if (table._gendelLabelled) { return true; }
    var head = table.tHead && table.tHead.rows.length ? table.tHead.rows[table.tHead.rows.length - 1] : null;
    if (!head) { return false; }
    var names = Array.prototype.map.call(head.cells, function (c) { return c.textContent.trim(); });
    Array.prototype.forEach.call(table.tBodies, function (body) {
      Array.prototype.forEach.call(body.rows, function (row) {
        var col = 0;
        Array.prototype.forEach.call(row.cells, function (cell) {
          if (names[col]) { cell.setAttribute("data-label", names[col]); }
          col += cell.colSpan || 1;
        });
      });
    });
    table._gendelLabelled = true;
    return true;
  }

  function fitTables() {
    var article = document.querySelector("article.bd-article") || document.querySelector("main") || document.body;
    Array.prototype.forEach.call(article.querySelectorAll("table"), function (table) {
      if (table.closest(".js-plotly-plot")) { return; }
      var wasStacked = table.classList.contains("gendel-stacked");
      table.classList.remove("gendel-stacked");
      var boxEl = table.parentElement, column = article.clientWidth;
      var wide = table.scrollWidth > Math.min(boxEl.clientWidth, column) + 1 || table.getBoundingClientRect().width > column + 1;
      if (column < NARROW_TABLE && wide && label(table)) {
        table.classList.add("gendel-stacked");
        // short cells (numbers, names): each on one line beside its column's title
        var longest = Math.max.apply(null, [0].concat(Array.prototype.map.call(table.querySelectorAll("tbody td"),
          function (td) { return td.textContent.trim().length; })));
        table.classList.toggle("gendel-stacked-short", longest <= 24);
      } else if (wasStacked) {
        table.classList.remove("gendel-stacked", "gendel-stacked-short");
      }
    });
  }

  var pending = null;
  function later() { clearTimeout(pending); pending = setTimeout(fitTables, 150); }
  if (document.readyState === "loading") { document.addEventListener("DOMContentLoaded", fitTables); } else { fitTables(); }
  window.addEventListener("load", function () {
    fitTables();
    if (window.MathJax && MathJax.startup && MathJax.startup.promise) { MathJax.startup.promise.then(fitTables); }
  });
  window.addEventListener("resize", later);
  window.gendelFitTables = fitTables;
})();
