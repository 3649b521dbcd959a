// Signing in on /play: create an account (its key shown once, with a clear "keep this"),
// sign in with a key, sign out (the browser forgets the key). Signed in, the page follows
// the account's stream (a ticket per connection: the key never goes into a URL) and keeps
// "My games" and the challenges current from its notes; a game that starts is offered.

import { Problem } from "./api.js";
import { ChallengesPanel } from "./challenges.js";
import { MyGames, tickDeadlines } from "./mygames.js";

const $ = (id) => document.getElementById(id);

/** The most news lines kept above the lists (the newest first). */
const NEWS_KEPT = 5;

export class AccountPanel {
  /**
   * `page`: `api`, `session` (session.js), `say(text, isError)`, `explain(error)`,
   * `linkTo(gameId, watch)`, `profileLink(handle)`, and `onChange()`, called when the
   * page signs in or out.
   */
  constructor(page) {
    this.page = page;
    this.stop = null;
    const parts = { ...page, open: (gameId) => this.open(gameId) };
    this.games = new MyGames(parts);
    this.challenges = new ChallengesPanel(parts);
  }

  /** Show the panel (on the page's start, beside the game forms) and wire it. */
  start(presets, bots) {
    $("account").hidden = false;
    this.challenges.setup(presets, bots);
    $("sign-up").addEventListener("submit", (e) => { e.preventDefault(); this.signUp(); });
    $("sign-in").addEventListener("submit", (e) => { e.preventDefault(); this.signIn(); });
    $("sign-out").addEventListener("click", () => this.signOut());
    $("copy-key").addEventListener("click", () => this.copyKey());
    $("kept-key").addEventListener("click", () => this.hideKey());
    setInterval(tickDeadlines, 1000);
    this.show();
  }

  /** Signed out: the two forms; signed in: the account's games, challenges and stream. */
  async show() {
    const me = this.page.session.account();
    $("signed-out").hidden = Boolean(me);
    $("signed-in").hidden = !me;
    this.page.onChange();
    if (!me) return;
    $("account-handle").textContent = me.handle;
    $("account-handle").href = this.page.profileLink(me.handle); // your own ratings
    let after;
    try {
      after = (await this.page.api.me(me.key)).last_note; // earlier notes: the lists say them
    } catch (e) {
      if (e instanceof Problem && e.status === 401) this.refused();
      else this.page.say(`Your account did not load: ${this.page.explain(e)}`, true);
      return;
    }
    this.stop = this.page.api.followAccount(me.key, {
      after, onNote: (note) => this.note(note), onRefused: () => this.refused(),
    });
    await Promise.all([this.games.refresh(), this.challenges.refresh()]);
  }

  async signUp() {
    const handle = $("sign-up-handle").value.trim();
    $("sign-up-button").disabled = true;
    try {
      const made = await this.page.api.createAccount(handle);
      this.page.session.signIn(made.handle, made.key);
      $("sign-up-handle").value = "";
      $("new-key-value").textContent = made.key;
      $("new-key").hidden = false;
      this.page.say(`Account ${made.handle} created: keep its key.`);
      this.show();
      $("new-key").focus(); // read first: the key and what to do with it
    } catch (e) {
      this.page.say(`No account: ${this.page.explain(e)}`, true);
    } finally {
      $("sign-up-button").disabled = false;
    }
  }

  async signIn() {
    const key = $("sign-in-key").value.trim();
    $("sign-in-button").disabled = true;
    try {
      const me = await this.page.api.me(key);
      this.page.session.signIn(me.handle, key);
      $("sign-in-key").value = "";
      this.page.say(`Signed in as ${me.handle}.`);
      await this.show();
    } catch (e) {
      this.page.say(e instanceof Problem && e.status === 401
        ? "This key is not an account's (or no longer): check it and try again."
        : `Not signed in: ${this.page.explain(e)}`, true);
    } finally {
      $("sign-in-button").disabled = false;
    }
  }

  signOut() {
    this.forget();
    this.page.say("Signed out: this browser no longer holds your key.");
    this.show();
  }

  /** The key was refused (the account closed, or its key replaced elsewhere). */
  refused() {
    this.forget();
    this.page.say("Your key was refused (the account was closed, or its key replaced): sign in again.", true);
    this.show();
  }

  forget() {
    if (this.stop) this.stop();
    this.stop = null;
    this.page.session.signOut();
    this.hideKey();
    this.games.clear();
    this.challenges.clear();
    $("account-news").replaceChildren();
  }

  async copyKey() {
    try {
      await navigator.clipboard.writeText($("new-key-value").textContent);
      this.page.say("The key is copied: paste it where you keep it.");
    } catch {
      // no clipboard (a page on plain http): select it for the reader to copy
      getSelection().selectAllChildren($("new-key-value"));
      this.page.say("The key is selected: copy it (Ctrl+C, or the menu).");
    }
  }

  /** The key leaves the page once kept: it is never shown again. */
  hideKey() {
    $("new-key-value").textContent = "";
    $("new-key").hidden = true;
  }

  /** One note of the account's stream: the lists it changes, and news worth a line. */
  note(note) {
    switch (note.type) {
      case "challenge":
        this.news(`${note.challenge.challenger} challenges you.`);
        this.challenges.refresh();
        break;
      case "challenge_declined":
        this.news(`${note.by} declined a challenge you are in.`);
        this.challenges.refresh();
        break;
      case "challenge_canceled":
        this.news(note.reason === "expired" ? "A challenge expired unanswered." : "A challenge to you was canceled.");
        this.challenges.refresh();
        break;
      case "game_started":
        this.news(`Your game with ${note.players.filter((_, s) => s !== note.seat).join(", ")} has started.`, note.game_id);
        this.games.refresh();
        this.challenges.refresh();
        break;
      case "your_turn":
      case "game_finished":
        this.games.refresh();
        break;
      case "analysis_skipped":
        this.news(note.reason === "quota"
          ? `A rated game of yours was not analysed: your ${note.per_day} automatic analyses a day are used up.`
          : "A rated game of yours was not analysed: the analysis queue was full.", note.game_id);
        break;
      default:
    }
  }

  /** A line above the lists, with a link that opens `gameId` when there is one. */
  news(text, gameId = null) {
    const item = document.createElement("li");
    item.append(text);
    if (gameId) {
      const link = document.createElement("a");
      link.className = "open-game";
      link.dataset.game = gameId;
      link.href = this.page.linkTo(gameId, false);
      link.textContent = "Open the game";
      item.append(" ", link);
    }
    const list = $("account-news");
    list.prepend(item);
    while (list.children.length > NEWS_KEPT) list.lastElementChild.remove();
  }

  /** Leave the lists for a game, played with the account's key (found by the page). */
  open(gameId) {
    if (this.stop) this.stop();
    this.stop = null;
    location.assign(this.page.linkTo(gameId, false));
  }
}
