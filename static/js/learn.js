// The learning pages (templates/learn/): draw every card with the table's own face
// (cards.js), in place of the text the server wrote (which stays without JavaScript).
import { cardFace } from "./cards.js";

for (const area of document.querySelectorAll(".cards-area")) {
  const level = area.dataset.level || null;
  const wild = area.dataset.wild || null;
  for (const slot of area.querySelectorAll(".face-slot")) {
    const mini = slot.closest(".mini-cards") ? " mini" : "";
    const tpl = document.createElement("template");
    tpl.innerHTML = cardFace(slot.dataset.card, level, wild, mini);
    slot.replaceWith(tpl.content.firstElementChild);
  }
}
