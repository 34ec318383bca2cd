// The invitation of a friends' table: the phone's share sheet (Web Share API) where the
// browser has one, else the link copied to the clipboard (else selected, for a manual copy).
const status = document.querySelector("[data-invite-status]");

function say(text) {
  if (status) status.textContent = text;
}

async function copy(url) {
  if (navigator.clipboard && window.isSecureContext) {
    await navigator.clipboard.writeText(url);
    return true;
  }
  const input = document.getElementById("invite-link");
  if (!input) return false;
  input.focus();
  input.select();
  return document.execCommand ? document.execCommand("copy") : false;
}

for (const button of document.querySelectorAll("[data-invite-share]")) {
  button.addEventListener("click", async () => {
    const data = { title: button.dataset.title, text: button.dataset.text, url: button.dataset.url };
    if (navigator.share && (!navigator.canShare || navigator.canShare(data))) {
      try {
        await navigator.share(data);
        return;
      } catch (error) {
        if (error && error.name === "AbortError") return; // the sheet was closed: nothing to do
      }
    }
    try {
      say((await copy(data.url)) ? button.dataset.copied : button.dataset.failed);
    } catch {
      say(button.dataset.failed);
    }
  });
}

// The room code is read aloud digit by digit and shown in two groups of three.
const code = document.querySelector("[data-room-code]");
if (code && /^\d{6}$/.test(code.textContent.trim())) {
  const digits = code.textContent.trim();
  code.setAttribute("aria-label", digits.split("").join(" "));
  code.textContent = `${digits.slice(0, 3)} ${digits.slice(3)}`;
}
