// The strong bot's review on the replay page (reviews app): a moment's button moves the
// replay to the action the moment is about and brings the replay into view. It moves the
// replay's own slider and tells it (an "input" event, as a person's drag does), so the replay
// (matches' replay.js) stays the one place that draws a step.
const slider = document.getElementById("replay-slider");
const replay = document.getElementById("replay");
const buttons = document.querySelectorAll("button[data-review-jump]");

buttons.forEach((button) => button.addEventListener("click", () => {
  if (!slider || !replay) return;
  const step = Math.min(Number(slider.max), Math.max(0, Number(button.dataset.reviewJump) || 0));
  slider.value = String(step);
  slider.dispatchEvent(new Event("input", { bubbles: true }));
  buttons.forEach((b) => b.setAttribute("aria-pressed", String(b === button)));
  replay.scrollIntoView({ block: "start" });
}));
