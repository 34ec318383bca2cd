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
