"use strict";
// The live table's page. The table changes only through the server's messages: a snapshot draws it whole
// (on connecting, reconnecting, and when the sort or search changes), each batch is applied in UIKit's
// order, keeping the elements it moves. A person's edit happens in the row; the server keeps the row as it
// was when the edit began, and refuses a save that would overwrite a change made since (a "conflict").
const table = document.getElementById("table");
const form = document.getElementById("form");
const search = document.querySelector("input[name=search]");
const statusLine = document.getElementById("status");
const countLine = document.getElementById("count");
const messageLine = document.getElementById("message");
let socket = null, nextRef = 1, commit = 0, lastChange = Date.now();
let view = {sort: "name", ascending: true, search: ""};
let editing = null;       // {id, tr, base: the row when the edit began, notice}
let writersRunning = false;
const pending = new Map(); // ref -> what the page is waiting for: {kind, ...}
const batchRows = new Map(); // commit -> the rows its batch inserted, reloaded or moved (for "yours")
const myCommits = new Set();  // commits of this page's adds and edits (an ack may come before its batch)
window.__log = [];          // after each snapshot or batch: {commit, seq, sections} (read by the tests)
window.__errors = [];       // error replies
window.__conflicts = [];    // conflict replies
window.__applyFailures = 0; // batches that did not fit the table (never expected)

// ---- Rows and sections ----

function rowElement(row) {
  const tr = document.createElement("tr");
  tr.className = "row";
  for (const name of ["name", "price", "category", "actions"]) {
    const td = document.createElement("td");
    td.className = name;
    tr.append(td);
  }
  fill(tr, row);
  showActions(tr);
  return tr;
}

// The row's data lives in its dataset; the cells show it unless the person is editing the row.
function fill(tr, row) {
  Object.assign(tr.dataset, {id: row.id, name: row.name, price: row.price, category: row.category});
  if (editing && editing.tr === tr) return changedWhileEditing(row);
  tr.cells[0].textContent = row.name;
  tr.cells[1].textContent = `${row.price} ₽`;
  tr.cells[2].textContent = row.category;
}

function rowData(tr) {
  return {id: tr.dataset.id, name: tr.dataset.name, price: Number(tr.dataset.price), category: tr.dataset.category};
}

function button(text, className, action) {
  const b = document.createElement("button");
  b.type = "button"; b.textContent = text; b.className = `quiet ${className}`; b.onclick = action;
  return b;
}

function showActions(tr) {
  tr.cells[3].replaceChildren(button("Edit", "edit", () => startEditing(tr)), " ", button("Delete", "delete", () => confirmDelete(tr)));
}

function confirmDelete(tr) {
  tr.cells[3].replaceChildren("Delete? ", button("Yes", "confirm-delete", () => {
    const row = rowData(tr);
    send({type: "delete", id: row.id}, {kind: "delete", row});
    showActions(tr);
  }), " ", button("No", "keep", () => showActions(tr)));
}

function sectionElement(name) {
  const body = document.createElement("tbody");
  const head = body.insertRow();
  const th = document.createElement("th");
  th.className = "section"; th.colSpan = 4; th.textContent = name || "(no category)";
  body.dataset.name = name;
  head.append(th);
  return body;
}

// Row r of section s is the tbody's row r + 1 (row 0 is the header); a notice row under an edited row
// is not counted.
function rowAt(p) { return [...table.tBodies[p[0]].rows].filter(tr => tr.classList.contains("row"))[p[1]]; }

function arrive(tr) {
  tr.classList.add("arriving");
  requestAnimationFrame(() => requestAnimationFrame(() => tr.classList.remove("arriving")));
}

// ---- Snapshots and batches ----

function applySnapshot(m) {
  const open = editing && {row: editing.base, typed: typedValues(), id: editing.id};
  editing = null;
  for (const body of [...table.tBodies]) body.remove();
  for (const s of m.sections) {
    const body = sectionElement(s.name);
    for (const row of s.rows) body.append(rowElement(row));
    table.append(body);
  }
  commit = m.commit;
  if (open) reopenAfterSnapshot(open);
  record(m.commit, 0);
}

function applyBatch(b) {
  // Positions before the batch: reloads, move sources, deletes.
  const reloaded = b.reloads.map(r => [rowAt(r.at), r.row]);
  const moved = b.moves.map(m => [rowAt(m.from), m]);
  const deleted = b.deleteRows.map(rowAt);
  if ([...reloaded.map(x => x[0]), ...moved.map(x => x[0]), ...deleted].some(e => !e)) throw new Error("position out of range");
  for (const [tr, row] of reloaded) { tr.classList.remove("mine"); fill(tr, row); }
  // Deletes (and move sources) in descending old coordinates, then deleted sections.
  const leaving = [...b.deleteRows, ...b.moves.map(m => m.from)].sort((a, c) => c[0] - a[0] || c[1] - a[1]);
  const byPosition = new Map(leaving.map(p => [p.join(","), rowAt(p)]));
  for (const p of leaving) detach(byPosition.get(p.join(",")));
  const goneSections = [...b.deleteSections].sort((a, c) => c - a).map(i => table.tBodies[i]);
  for (const body of goneSections) body.remove();
  // Inserted sections, then inserted rows and move targets, in ascending new coordinates.
  for (const s of [...b.insertSections].sort((a, c) => a.index - c.index)) {
    table.insertBefore(sectionElement(s.name), table.tBodies[s.index] || null);
  }
  const arriving = [...b.insertRows.map(r => [r.at, rowElement(r.row)]),
                    ...moved.map(([tr, m]) => { tr.classList.remove("mine"); fill(tr, m.row); return [m.to, tr]; })]
                   .sort((a, c) => a[0][0] - c[0][0] || a[0][1] - c[0][1]);
  for (const [p, tr] of arriving) {
    const body = table.tBodies[p[0]];
    body.insertBefore(tr, rowAt([p[0], p[1]]) || null);
    if (editing && editing.tr === tr && editing.notice) tr.after(editing.notice);
    arrive(tr);
  }
  if (editing && deleted.includes(editing.tr)) deletedWhileEditing();
  batchRows.set(b.commit, [...reloaded.map(x => x[0]), ...arriving.map(x => x[1])]);
  if (myCommits.has(b.commit)) markMine(b.commit);
  if (batchRows.size > 200) batchRows.delete(batchRows.keys().next().value);
  commit = b.commit;
  lastChange = Date.now();
  record(b.commit, b.seq);
}

function detach(tr) {
  if (editing && editing.tr === tr && editing.notice) editing.notice.remove();
  tr.remove();
}

function domSections() {
  return [...table.tBodies].map(body => ({
    name: body.dataset.name,
    rows: [...body.rows].filter(tr => tr.classList.contains("row")).map(rowData)
  }));
}

function record(k, seq) {
  window.__log.push({commit: k, seq, sections: domSections()});
  const shown = table.querySelectorAll("tr.row").length;
  countLine.textContent = `${shown} product${shown === 1 ? "" : "s"}${view.search ? ` matching “${view.search}”` : ""}`;
  const names = new Set([...table.tBodies].map(body => body.dataset.name));
  document.getElementById("categories").replaceChildren(...[...names].map(n => { const o = document.createElement("option"); o.value = n; return o; }));
  showStatus();
}

// ---- Editing in the row ----

function startEditing(tr) {
  if (editing) stopEditing(true);
  const row = rowData(tr);
  editing = {id: row.id, tr, base: row, notice: null};
  tr.classList.add("editing");
  const input = (cls, value, type) => {
    const i = document.createElement("input");
    i.className = cls; i.value = value; if (type) i.type = type;
    i.onkeydown = e => { if (e.key === "Enter") saveEdit(); if (e.key === "Escape") stopEditing(true); };
    return i;
  };
  tr.cells[0].replaceChildren(input("edit-name", row.name));
  tr.cells[1].replaceChildren(input("edit-price", row.price, "number"));
  tr.cells[2].replaceChildren(input("edit-category", row.category));
  tr.cells[3].replaceChildren(button("Save", "save", saveEdit), " ", button("Cancel", "cancel", () => stopEditing(true)));
  tr.cells[0].firstChild.focus();
  send({type: "begin", id: row.id}, {kind: "begin"});
}

function typedValues() {
  if (!editing) return null;
  const tr = editing.tr;
  return {name: tr.querySelector(".edit-name").value, price: tr.querySelector(".edit-price").value,
          category: tr.querySelector(".edit-category").value};
}

function saveEdit() {
  const typed = typedValues();
  const fields = {name: typed.name, price: Number(typed.price), category: typed.category};
  if (send({type: "edit", id: editing.id, fields}, {kind: "edit", id: editing.id})) editing.sent = fields;
}

// Leaves the edit: the row shows its data again (`tell`: the server drops the edit too).
function stopEditing(tell) {
  if (!editing) return;
  const {tr, id} = editing;
  if (tell) send({type: "end", id});
  if (editing.notice) editing.notice.remove();
  editing = null;
  tr.classList.remove("editing");
  fill(tr, rowData(tr));
  showActions(tr);
}

function notice(text, ...buttons) {
  if (!editing) return;
  if (!editing.notice) {
    editing.notice = document.createElement("tr");
    editing.notice.className = "notice";
    editing.notice.insertCell().colSpan = 4;
    editing.tr.after(editing.notice);
  }
  editing.notice.cells[0].replaceChildren(text, ...buttons);
}

function describe(row) { return `“${row.name}”, ${row.price} ₽, ${row.category}`; }

// Someone else changed the row the person is editing: their inputs stay; the notice says what changed.
function changedWhileEditing(row) {
  const sent = editing.sent;
  if (sent && sent.name === row.name && sent.price === row.price && sent.category === row.category) return;  // the save's own batch
  notice(`Changed by someone else while you edit: now ${describe(row)}. Saving will ask before it replaces that.`);
}

// The row the person was editing was deleted: what they typed goes to the Add form, and they are told.
function deletedWhileEditing() {
  const typed = typedValues();
  const name = editing.base.name;
  editing = null;
  keepInAddForm(typed);
  say(`“${name}” was deleted by another page while you edited it. What you typed is in the form above: Add keeps it.`, "bad", "edit");
}

function keepInAddForm(typed) {
  form.name.value = typed.name; form.price.value = typed.price; form.category.value = typed.category;
}

function conflict(m) {
  window.__conflicts.push(m);
  if (!editing || editing.id !== m.id) return;
  if (!m.current) {
    const typed = typedValues();
    stopEditing(true);
    keepInAddForm(typed);
    say(`The row you edited was deleted by someone else: not saved. What you typed is in the form above: Add keeps it.`, "bad", "edit");
    return;
  }
  editing.base = m.current;
  editing.sent = null;
  notice(`Not saved: someone else changed this row to ${describe(m.current)}.`,
         button("Save mine", "save-mine", saveEdit),
         button("Use theirs", "use-theirs", () => stopEditing(true)));
}

// After a snapshot the edited row is a new element: the edit goes on in it, or, if the row is gone, what the
// person typed is kept in the Add form.
function reopenAfterSnapshot(open) {
  const tr = [...table.querySelectorAll("tr.row")].find(tr => tr.dataset.id === open.id);
  if (!tr) {
    keepInAddForm(open.typed);
    say(`The row you were editing is no longer shown. What you typed is in the form above.`, "bad", "edit");
    return;
  }
  startEditing(tr);
  tr.querySelector(".edit-name").value = open.typed.name;
  tr.querySelector(".edit-price").value = open.typed.price;
  tr.querySelector(".edit-category").value = open.typed.category;
  const now = rowData(tr);
  if (now.name !== open.row.name || now.price !== open.row.price || now.category !== open.row.category) changedWhileEditing(now);
  editing.base = open.row;
}

// ---- Messages from the server ----

function ack(m) {
  const what = pending.get(m.ref);
  pending.delete(m.ref);
  if (!what) return;
  if (what.kind === "add" || what.kind === "edit") {
    myCommits.add(m.commit);
    markMine(m.commit);
  }
  if (what.kind === "add") {
    if (form.name.value === what.fields.name && Number(form.price.value) === what.fields.price && form.category.value === what.fields.category) form.reset();
    clearMessage("add");
  } else if (what.kind === "edit" && editing && editing.id === what.id) {
    stopEditing(false);
    clearMessage("edit");
  }
}

// The rows a commit of this page's changed are marked as its own (until someone else changes them).
function markMine(k) {
  for (const tr of batchRows.get(k) || []) tr.classList.add("mine");
}

function refused(m) {
  window.__errors.push(m);
  const what = pending.get(m.ref);
  pending.delete(m.ref);
  if (what && what.kind === "begin") return;  // the row is gone: its batch says so
  say(what && what.kind === "delete" ? `Not deleted: ${m.message}` : `Not saved: ${m.message}`, "bad", what ? what.kind : "server");
}

function writers(m) {
  writersRunning = m.running;
  document.getElementById("writers").hidden = m.count === 0;
  document.getElementById("writers-state").textContent = `${m.count} background writer${m.count === 1 ? "" : "s"} ${m.running ? "running" : "paused"}`;
  document.getElementById("writers-toggle").textContent = m.running ? "Pause" : "Resume";
}

document.getElementById("writers-toggle").onclick = () => send({type: "writers", running: !writersRunning});

// ---- Sort and search: the controller's request changes on the server ----

for (const th of table.tHead.querySelectorAll("th.sortable")) {
  th.onclick = () => {
    view = {...view, ascending: view.sort === th.dataset.key ? !view.ascending : true, sort: th.dataset.key};
    sendView();
  };
}
let searchTimer = null;
search.oninput = () => {
  clearTimeout(searchTimer);
  searchTimer = setTimeout(() => { view = {...view, search: search.value.trim()}; sendView(); }, 200);
};

function sendView() {
  for (const th of table.tHead.querySelectorAll("th.sortable")) {
    const label = th.dataset.key === "name" ? "Name" : "Price, ₽";
    th.textContent = th.dataset.key === view.sort ? `${label} ${view.ascending ? "▲" : "▼"}` : label;
  }
  send({type: "view", ...view});
}

// ---- The Add form ----

form.onsubmit = event => {
  event.preventDefault();
  const fields = {name: form.name.value, price: Number(form.price.value), category: form.category.value};
  send({type: "add", ...fields}, {kind: "add", fields});
};

// ---- Connection, status and messages ----

function say(text, kind, cause) {
  messageLine.textContent = text;
  messageLine.className = kind || "";
  messageLine.dataset.cause = cause || "";
}

function clearMessage(cause) {
  if (messageLine.dataset.cause === cause) say("");
}

function send(message, waitFor) {
  if (!socket || socket.readyState !== WebSocket.OPEN) {
    say("Not sent: the page is offline (it reconnects by itself; what you typed is kept).", "bad", "offline");
    return false;
  }
  message.ref = nextRef++;
  if (waitFor) pending.set(message.ref, waitFor);
  socket.send(JSON.stringify(message));
  return true;
}

function showStatus() {
  if (statusLine.className === "down") return;
  const seconds = Math.round((Date.now() - lastChange) / 1000);
  statusLine.className = "live";
  statusLine.textContent = seconds < 2 ? "Live · changed just now" : `Live · last change ${seconds < 120 ? `${seconds} s` : `${Math.round(seconds / 60)} min`} ago`;
  statusLine.title = `commit ${commit}`;
}
setInterval(showStatus, 1000);

function setOnline(online) {
  document.body.classList.toggle("offline", !online);
  for (const control of document.querySelectorAll("button, input")) control.disabled = !online;
  if (online) {
    statusLine.className = "live";
    clearMessage("offline");
  } else {
    statusLine.className = "down";
    statusLine.textContent = "Offline — reconnecting…";
    pending.clear();
  }
}

function connect() {
  socket = new WebSocket(`ws://${location.host}/socket`);
  socket.onopen = () => {
    setOnline(true);
    if (view.sort !== "name" || !view.ascending || view.search) sendView();
  };
  socket.onmessage = event => {
    const m = JSON.parse(event.data);
    if (m.type === "snapshot") applySnapshot(m);
    else if (m.type === "batch") {
      try { applyBatch(m); } catch (e) { window.__applyFailures++; socket.close(); }
    } else if (m.type === "ack") ack(m);
    else if (m.type === "error") refused(m);
    else if (m.type === "conflict") conflict(m);
    else if (m.type === "writers") writers(m);
  };
  socket.onclose = () => {
    setOnline(false);
    setTimeout(connect, 500);
  };
}
setOnline(false);
statusLine.className = "";
statusLine.textContent = "connecting…";
connect();
