// The referee console of a live table: a panel over the spectator view that applies a
// sanction (POST to the referee view; the server checks the permission and answers in the
// user's language). Every seat learns of the sanction from the table's own frames.
const root = document.getElementById("referee");
if (root) {
  const toggle = root.querySelector(".referee-toggle");
  const panel = root.querySelector(".referee-panel");
  const message = root.querySelector(".referee-message");
  const show = (open) => {
    panel.hidden = !open;
    toggle.setAttribute("aria-expanded", open ? "true" : "false");
    if (open) root.querySelector("#referee-reason").focus();
  };
  toggle.addEventListener("click", () => show(panel.hidden));
  root.querySelector(".referee-close").addEventListener("click", () => show(false));
  panel.addEventListener("submit", async (e) => {
    e.preventDefault();
    const button = panel.querySelector("button[type=submit]");
    button.disabled = true;
    message.classList.remove("error");
    try {
      const response = await fetch(root.dataset.url, {
        method: "POST",
        body: new FormData(panel),
        headers: { Accept: "application/json" },
        credentials: "same-origin",
      });
      const answer = await response.json();
      if (response.ok) {
        message.textContent = message.dataset.applied;
        panel.querySelector("#referee-reason").value = "";
      } else {
        message.textContent = answer.detail || String(response.status);
        message.classList.add("error");
      }
    } catch (error) {
      message.textContent = String(error);
      message.classList.add("error");
    } finally {
      button.disabled = false;
    }
  });
}
