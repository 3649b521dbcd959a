// What this browser keeps between visits, in localStorage and per API base: each game's
// seat token (so a reload resumes the seat), and the account this page is signed in with
// (its handle and key). A key or a token is only ever sent in Authorization: nothing here
// goes into a URL, and nothing is logged.

export class Session {
  constructor(base) {
    this.base = base;
  }

  seatKey(gameId) { return `three-thirteen:${this.base}:${gameId}`; }

  /** The seat this browser holds in `gameId` by its token: `{ seat, token }`, or null. */
  seat(gameId) {
    try { return JSON.parse(localStorage.getItem(this.seatKey(gameId))); } catch { return null; }
  }

  saveSeat(gameId, seat, token) {
    localStorage.setItem(this.seatKey(gameId), JSON.stringify({ seat, token }));
  }

  forgetSeat(gameId) { localStorage.removeItem(this.seatKey(gameId)); }

  get accountKey() { return `three-thirteen-account:${this.base}`; }

  /** The signed-in account, `{ handle, key }`, or null when signed out. */
  account() {
    try {
      const found = JSON.parse(localStorage.getItem(this.accountKey));
      return found && typeof found.key === "string" && typeof found.handle === "string" ? found : null;
    } catch { return null; }
  }

  signIn(handle, key) {
    localStorage.setItem(this.accountKey, JSON.stringify({ handle, key }));
  }

  /** Forget the key in this browser (the account itself stays: its key signs in again). */
  signOut() { localStorage.removeItem(this.accountKey); }
}
