// Card notation of the engine (suit first: "S3", "HT", jokers "SB" small and "HR" big) for display.
const SUITS = { S: "♠", H: "♥", C: "♣", D: "♦" };
const RANKS = "23456789TJQKA";

export function rankIndex(card) {
  if (card === "SB") return 13;
  if (card === "HR") return 14;
  return RANKS.indexOf(card[1]);
}

export function isRed(card) {
  return card === "HR" || card[0] === "H" || card[0] === "D";
}

export function cardLabel(card) {
  if (card === "SB") return "小王";
  if (card === "HR") return "大王";
  const rank = card[1] === "T" ? "10" : card[1];
  return `${SUITS[card[0]] || "?"}${rank}`;
}

// A card drawn as a card: a white face, the rank over the suit in the top corner (the part
// that stays visible when cards overlap), a big pip in the middle. ``level`` is the deal's
// level rank ("3", "T", …) and ``wild`` the wild card, both marked on the face.
export function cardFace(card, level, wild, extra = "") {
  const joker = card === "SB" || card === "HR";
  const rank = joker ? (card === "HR" ? "大" : "小") : card[1] === "T" ? "10" : card[1];
  const suit = joker ? "王" : SUITS[card[0]] || "?";
  let cls = `face${isRed(card) ? " red" : " black"}${joker ? " joker" : ""}${extra}`;
  if (!joker && level && card[1] === level) cls += " level";
  if (wild && card === wild) cls += " wild";
  return `<span class="${cls}" data-card="${card}" aria-label="${cardLabel(card)}"><span class="ix"><b>${rank}</b><i>${suit}</i></span><span class="pip" aria-hidden="true">${suit}</span></span>`;
}

// Sort a hand high to low by the variant's rank values (sent by the server with the frame):
// wild cards first, then by value, then by suit.
export function sortHand(hand, order, level) {
  const value = order && order.value ? order.value : [...Array(15).keys()];
  const wild = order ? order.wild : null;
  const key = (c) => {
    const w = c === wild ? 1000 : 0;
    return w + value[rankIndex(c)] * 4 + "DCHS".indexOf(c[0]);
  };
  return [...hand].sort((a, b) => key(b) - key(a));
}
