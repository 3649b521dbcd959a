// Command play plays one whole game of Three-Thirteen against the reference `greedy` bot
// through the Go client that OpenAPI Generator makes from openapi/openapi.json (package
// threethirteen; openapi/go/build.py generates it and builds this program).
//
// Run: openapi/go/build/play http://127.0.0.1:8000 (after `make run` and `make go-client`)
//
// It waits for its turn with the long-poll (`wait=turn`), then sends one of the view's
// `legal_actions` as it is, with `If-Match` (the version it decided on) and an
// `Idempotency-Key`, until the game is finished. It prints the game's id, then, at the end,
// each player's total and the winners.
package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/http"
	"os"
	"strings"

	tt "threethirteen"
)

func main() {
	base := "http://127.0.0.1:8000"
	if len(os.Args) > 1 {
		base = os.Args[1]
	}
	if err := play(base); err != nil {
		fmt.Fprintln(os.Stderr, "play:", err)
		os.Exit(1)
	}
}

func play(base string) error {
	cfg := tt.NewConfiguration()
	cfg.Servers = tt.ServerConfigurations{{URL: base}}
	api := tt.NewAPIClient(cfg)

	// Seat 0 is ours (a named seat: its token comes back), seat 1 the greedy bot's.
	body := tt.CreateGameRequest{Players: []tt.PlayerSpec{
		{APlayerSSeatOrAnOpenOne: &tt.APlayerSSeatOrAnOpenOne{Name: "go-bot"}},
		{ABotSSeat: &tt.ABotSSeat{Bot: "greedy"}},
	}}
	created, _, err := api.GamesAPI.CreateGame(context.Background()).CreateGameRequest(body).Execute()
	if err != nil {
		return fmt.Errorf("create: %w", describe(err))
	}
	mine := created.Seats[0].HumanSeatToken
	if mine == nil {
		return fmt.Errorf("seat 0 is not a named seat")
	}
	fmt.Printf("game: %s\n", created.GameId)
	// The seat's token is the bearer of every request below.
	ctx := context.WithValue(context.Background(), tt.ContextAccessToken, mine.Token)

	for {
		got, _, err := api.GamesAPI.GetGame(ctx, created.GameId).Wait("turn").Timeout(30).Execute()
		if err != nil {
			return fmt.Errorf("wait for the turn: %w", describe(err))
		}
		if done := got.FinishedGameView; done != nil {
			report(done)
			return nil
		}
		view := got.InProgressGameView
		if view == nil {
			return fmt.Errorf("a view that is neither in progress nor finished")
		}
		action, ok := choose(view)
		if !ok {
			continue // the wait ended before our turn: wait again
		}
		_, resp, err := api.GamesAPI.Act(ctx, created.GameId).ActRequest(action).
			IfMatch(fmt.Sprintf(`"%d"`, view.Version)).IdempotencyKey(newKey()).Execute()
		// a stale view (412 version_conflict) is no error: the next wait brings the new one
		if err != nil && (resp == nil || resp.StatusCode != http.StatusPreconditionFailed) {
			return fmt.Errorf("act: %w", describe(err))
		}
	}
}

// choose goes out when allowed, takes a wild card off the discard pile, otherwise draws
// from the stock, and discards the costliest card that is not wild. Each choice is one
// of the listed legal actions, sent as the action body it already is; none is listed off
// our turn.
func choose(view *tt.InProgressGameView) (tt.ActRequest, bool) {
	wild := func(card string) bool {
		return card == "JK" || strings.HasPrefix(card, view.Round.WildRank)
	}
	cost := func(card string) int32 {
		if wild(card) {
			return -1
		}
		if value, ok := view.Rules.CardValues[card[:1]]; ok {
			return value
		}
		return 25
	}
	top := view.Round.DiscardTop.Get()
	takeDiscard := top != nil && wild(*top)
	var draw *tt.DrawAction
	var discard *tt.DiscardAction
	for _, legal := range view.LegalActions {
		switch {
		case legal.GoOutAction != nil:
			return tt.ActRequest{GoOutAction: legal.GoOutAction}, true
		case legal.DrawAction != nil:
			if draw == nil || (legal.DrawAction.Source == "discard") == takeDiscard {
				draw = legal.DrawAction
			}
		case legal.DiscardAction != nil:
			if discard == nil || cost(legal.DiscardAction.Card) > cost(discard.Card) {
				discard = legal.DiscardAction
			}
		}
	}
	switch {
	case draw != nil:
		return tt.ActRequest{DrawAction: draw}, true
	case discard != nil:
		return tt.ActRequest{DiscardAction: discard}, true
	}
	return tt.ActRequest{}, false
}

func report(view *tt.FinishedGameView) {
	name := func(seat int32) string {
		if n := view.Players[seat].Name.Get(); n != nil {
			return *n
		}
		if b := view.Players[seat].Bot.Get(); b != nil {
			return *b
		}
		return fmt.Sprint("seat ", seat)
	}
	for _, player := range view.Players {
		fmt.Printf("%s: %d\n", name(player.Seat), player.Total)
	}
	winners := make([]string, 0, len(view.Winners))
	for _, seat := range view.Winners {
		winners = append(winners, name(seat))
	}
	fmt.Printf("winners: %s\n", strings.Join(winners, ", "))
}

// describe adds the answer's body (a problem+json document) to a generated client error.
func describe(err error) error {
	if api, ok := err.(*tt.GenericOpenAPIError); ok {
		return fmt.Errorf("%s: %s", api.Error(), api.Body())
	}
	return err
}

func newKey() string {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		panic(err)
	}
	return hex.EncodeToString(b)
}
