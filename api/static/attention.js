// Telling a player their turn has come while they look elsewhere: the tab's title always, and,
// where they allowed it, a notification and a short sound (both off until chosen, remembered).
import { t } from "./i18n.js";

const PREFS_KEY = "gruft.attention";

function prefs() {
  try {
    return JSON.parse(localStorage.getItem(PREFS_KEY) || "{}");
  } catch {
    return {};
  }
}

function save(changes) {
  try {
    localStorage.setItem(PREFS_KEY, JSON.stringify({ ...prefs(), ...changes }));
  } catch {
    /* private browsing: the choice lasts this page only */
  }
}

// A short two-note chime made on the spot (no sound file to fetch).
function chime() {
  const Context = window.AudioContext || window.webkitAudioContext;
  if (!Context) return;
  const audio = new Context();
  [660, 880].forEach((hz, i) => {
    const tone = audio.createOscillator();
    const gain = audio.createGain();
    tone.frequency.value = hz;
    gain.gain.setValueAtTime(0.15, audio.currentTime + i * 0.18);
    gain.gain.exponentialRampToValueAtTime(0.001, audio.currentTime + i * 0.18 + 0.16);
    tone.connect(gain).connect(audio.destination);
    tone.start(audio.currentTime + i * 0.18);
    tone.stop(audio.currentTime + i * 0.18 + 0.17);
  });
  setTimeout(() => audio.close(), 800);
}

export class Attention {
  constructor(box, title) {
    this.title = title; // the page's own title, restored when the turn passes
    this.yours = false;
    const chosen = prefs();
    const check = (id, label, on, change) => {
      const input = Object.assign(document.createElement("input"), { type: "checkbox", id, checked: Boolean(on) });
      input.addEventListener("change", () => change(input));
      const wrap = document.createElement("label");
      wrap.append(input, ` ${label}`);
      return wrap;
    };
    const notify = check("notify-turn", t("Notify me when it is my turn"), chosen.notify && this.allowed(), async (input) => {
      if (input.checked && typeof Notification === "function" && Notification.permission !== "granted") {
        input.checked = (await Notification.requestPermission()) === "granted";
      }
      save({ notify: input.checked });
    });
    if (typeof Notification !== "function") notify.hidden = true;
    const sound = check("sound-turn", t("Play a sound"), chosen.sound, (input) => save({ sound: input.checked }));
    box.replaceChildren(notify, sound);
  }

  allowed() {
    return typeof Notification === "function" && Notification.permission === "granted";
  }

  // Called whenever the page knows whose turn it is; acts on the moment the turn becomes ours.
  turn(yours, what) {
    if (yours === this.yours) return;
    this.yours = yours;
    document.title = yours ? "▶ " + t("Your turn") + " · " + this.title : this.title;
    document.documentElement.dataset.yourTurn = String(yours);
    if (!yours) return;
    const chosen = prefs();
    if (chosen.sound) chime();
    if (chosen.notify && this.allowed() && document.visibilityState !== "visible") {
      const note = new Notification(t("Your turn"), { body: what, tag: "gruft-turn" });
      note.onclick = () => window.focus();
    }
  }
}
