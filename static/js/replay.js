// Replay of a finished match: every action, every hand (data rendered into the page).
import { cardLabel, isRed, sortHand } from "./cards.js";

const steps = JSON.parse(document.getElementById("replay-steps").textContent);
const names = JSON.parse(document.getElementById("replay-names").textContent);
// the variant's card order (and wild card) per deal level, as on the table page
const orders = JSON.parse(document.getElementById("replay-orders").textContent);
const slider = document.getElementById("replay-slider");
const esc = (t) => String(t).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c]));
const card = (c, level) => `<span class="card small${isRed(c) ? " red" : ""}${level && c[1] === level ? " level" : ""}">${cardLabel(c)}</span>`;

function describe(action) {
  if (!action) return "—";
  if (action.pass) return names.pass;
  if (action.play) return action.play.map(cardLabel).join(" ") + ` (${names[action.type] || action.type})`;
  if (action.immune) return `${names.immune}: ${action.immune.map(cardLabel).join(" ")}`;
  if (action.tribute) return `${names.tribute}: ${cardLabel(action.tribute)}`;
  if (action.return) return `${names.return}: ${cardLabel(action.return)}`;
  if (action.time_up) return names.time_up;
  return esc(JSON.stringify(action));
}

function show(i) {
  const step = steps[i];
  slider.value = String(i);
  document.getElementById("replay-pos").textContent = `${i} / ${steps.length - 1}`;
  const who = step.seat === null || step.seat === undefined ? "" : `${esc(names.seats[step.seat])}: `;
  const view0 = step.views[0];
  document.getElementById("replay-action").innerHTML =
    `<span>${esc(names.deal.replace("%(n)s", view0.deal_no + 1))}</span><span>${esc(names.level)}: ${esc(view0.level || "-")}</span><span>${who}${describe(step.action)}</span>`;
  document.querySelector("#replay-trick .center").innerHTML = (view0.trick || []).map((e) =>
    `<div class="trick-entry"><span class="who">${esc(names.seats[e.seat])}</span> ${e.pass ? names.pass : e.cards.map((c) => card(c, view0.level)).join("")}</div>`).join("") || "&nbsp;";
  document.getElementById("replay-hands").innerHTML = step.views.map((v, s) =>
    `<div class="replay-hand${s === step.seat ? " acted" : ""}"><strong>${esc(names.seats[s])}</strong> (${v.hand.length})<br>${sortHand(v.hand, orders[v.level || ""] || null, v.level).map((c) => card(c, v.level)).join("")}</div>`).join("");
}

document.querySelectorAll("[data-step]").forEach((b) => b.addEventListener("click", () => {
  show(Math.min(steps.length - 1, Math.max(0, Number(slider.value) + Number(b.dataset.step))));
}));
slider.addEventListener("input", () => show(Number(slider.value)));
document.addEventListener("keydown", (e) => {
  if (e.key === "ArrowRight") show(Math.min(steps.length - 1, Number(slider.value) + 1));
  if (e.key === "ArrowLeft") show(Math.max(0, Number(slider.value) - 1));
});
show(0);
