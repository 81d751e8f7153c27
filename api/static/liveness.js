// The play page's link to the server: a stream that is watched, not trusted.
//
// A connection can die without the browser noticing (a phone changing networks, a router
// dropping idle flows): the server sends a `ping` at least every `heartbeat` seconds, so a stream
// that has been silent for much longer is closed and opened again. Every reconnection asks the
// page to fetch again everything it shows (`onBack`); while the link is down the page says so
// (`onDown`) instead of showing a turn it can no longer vouch for.

const RETRY_MS = [500, 1000, 2000, 4000, 8000, 15000]; // waits between attempts, the last repeated

export class Link {
  constructor({ url, heartbeat, onMessage, onPresence, onDown, onBack, onNoStream }) {
    this.url = url; // () => the stream's URL now (with ?after= the version shown)
    this.silenceMs = Math.max(4000, heartbeat * 2000 + 3000);
    this.onMessage = onMessage;
    this.onPresence = onPresence || (() => {}); // who has the game open: no version, no table
    this.onDown = onDown;
    this.onBack = onBack;
    this.onNoStream = onNoStream;
    this.source = null;
    this.attempt = 0;
    this.down = false;
    this.everOpened = false;
    this.timer = null;
    this.watch = null;
    this.stopped = false;
    window.addEventListener("offline", () => this.lost());
    window.addEventListener("online", () => this.retryNow());
    document.addEventListener("visibilitychange", () => {
      // A phone's browser freezes a hidden tab: back in view, check at once.
      if (document.visibilityState === "visible" && this.down) this.retryNow();
    });
  }

  open() {
    if (this.stopped) return;
    clearTimeout(this.timer);
    this.close();
    if (typeof EventSource === "undefined") {
      this.onNoStream();
      return;
    }
    const source = new EventSource(this.url());
    this.source = source;
    let first = true;
    const heard = () => {
      this.beat();
      if (first) {
        first = false;
        this.everOpened = true;
        this.attempt = 0;
        if (this.down) {
          this.down = false;
          this.onBack();
        }
      }
    };
    source.addEventListener("update", (message) => {
      heard();
      this.onMessage(message);
    });
    source.addEventListener("ping", heard);
    source.addEventListener("presence", (message) => {
      heard();
      this.onPresence(message);
    });
    source.addEventListener("error", () => {
      if (this.source !== source) return;
      if (source.readyState === EventSource.CLOSED && !this.everOpened) {
        this.close();
        this.onNoStream(); // no stream here (or it refused us)
        return;
      }
      this.lost();
    });
    this.beat();
  }

  // Nothing heard for too long: the stream is dead even if the browser thinks otherwise.
  beat() {
    clearTimeout(this.watch);
    this.watch = setTimeout(() => this.lost(), this.silenceMs);
  }

  lost() {
    if (this.stopped) return;
    this.close();
    if (!this.down) {
      this.down = true;
      this.onDown();
    }
    clearTimeout(this.timer);
    const wait = RETRY_MS[Math.min(this.attempt, RETRY_MS.length - 1)];
    this.attempt += 1;
    this.timer = setTimeout(() => this.open(), wait);
  }

  retryNow() {
    if (this.stopped || !this.down) return;
    this.attempt = 0;
    clearTimeout(this.timer);
    this.open();
  }

  close() {
    clearTimeout(this.watch);
    if (this.source) this.source.close();
    this.source = null;
  }

  // The game is over: the server ends the stream, and nothing is to be awaited any more.
  stop() {
    this.stopped = true;
    clearTimeout(this.timer);
    this.close();
  }
}
