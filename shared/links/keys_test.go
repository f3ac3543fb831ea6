package links_test

import (
	"context"
	"sync"
	"testing"

	"surveyservice/shared/links"
)

// Two containers on one table: the second opens the first's links with one
// KMS Decrypt of the data key, then none.
func TestTwoContainersShareKeys(t *testing.T) {
	a, b := newContainer(t), newContainer(t)
	ctx := context.Background()
	payloads := make([]links.Payload, 10)
	for i := range payloads {
		payloads[i] = threeVars(i)
	}
	toks := seal(t, ctx, a.sealer, survey, payloads...)

	cctx, calls := counted()
	got, err := b.sealer.Open(cctx, survey, toks[0])
	if err != nil || !samePayload(got, payloads[0]) {
		t.Fatalf("container b: Open = %+v, %v", got, err)
	}
	wantCalls(t, "first open in container b", calls, 1, 1)
	if ops := calls.Ops(); ops["KMS.Decrypt"] != 1 {
		t.Errorf("first open in container b: ops %v, want one KMS.Decrypt", ops)
	}
	calls.Reset()
	for i, tok := range toks[1:] {
		got, err := b.sealer.Open(cctx, survey, tok)
		if err != nil || !samePayload(got, payloads[i+1]) {
			t.Errorf("container b: Open token %d = %+v, %v", i+1, got, err)
		}
	}
	wantCalls(t, "nine more opens in container b", calls, 0, 0)

	// b now holds the current key: sealing reads the pointer, no KMS.
	calls.Reset()
	btoks := seal(t, cctx, b.sealer, survey, payloads...)
	wantCalls(t, "container b sealing after it opened the current key", calls, 0, 1)
	if keyIDOf(t, btoks[0]) != keyIDOf(t, toks[0]) {
		t.Errorf("container b sealed under key %s, the current key is %s", keyIDOf(t, btoks[0]), keyIDOf(t, toks[0]))
	}
	calls.Reset()
	for i, tok := range btoks {
		if got, err := a.sealer.Open(cctx, survey, tok); err != nil || !samePayload(got, payloads[i]) {
			t.Errorf("container a: Open of b's token %d = %+v, %v", i, got, err)
		}
	}
	wantCalls(t, "container a opening b's tokens", calls, 0, 0)

	// A third container that seals first: one Decrypt, one read.
	c3 := newContainer(t)
	calls.Reset()
	seal(t, cctx, c3.sealer, survey, payloads...)
	wantCalls(t, "container c sealing first", calls, 1, 1)
	calls.Reset()
	for _, tok := range toks {
		if _, err := c3.sealer.Open(cctx, survey, tok); err != nil {
			t.Errorf("container c: Open = %v", err)
		}
	}
	wantCalls(t, "container c opening a's tokens", calls, 0, 0)
}

func TestKMSCallsPerSeal(t *testing.T) {
	s1 := newContainer(t)
	ctx, calls := counted()

	// A fresh table has no current key: one GenerateDataKey.
	seal(t, ctx, s1.sealer, survey, threeVars(0), threeVars(1))
	t.Logf("first seal on a fresh table: %v", calls.Ops())
	wantCalls(t, "first seal on a fresh table", calls, 1, -1)
	if ops := calls.Ops(); ops["KMS.GenerateDataKey"] != 1 {
		t.Errorf("first seal on a fresh table: ops %v, want one KMS.GenerateDataKey", ops)
	}
	if calls.DynamoDB() > 3 {
		t.Errorf("first seal on a fresh table: %d DynamoDB calls %v, want at most 3 (read the pointer, put the key, put the pointer)",
			calls.DynamoDB(), calls.Ops())
	}

	// Warm: nothing.
	calls.Reset()
	for i := range 5 {
		seal(t, ctx, s1.sealer, survey, threeVars(i))
	}
	wantCalls(t, "warm seals", calls, 0, 0)

	// A fresh container with a fresh current key in the table: one read,
	// one Decrypt.
	s2 := newContainer(t)
	calls.Reset()
	seal(t, ctx, s2.sealer, survey, threeVars(0))
	wantCalls(t, "fresh container sealing", calls, 1, 1)
	if ops := calls.Ops(); ops["KMS.Decrypt"] != 1 || ops["DynamoDB.GetItem"] != 1 {
		t.Errorf("fresh container sealing: ops %v, want KMS.Decrypt and DynamoDB.GetItem once each", ops)
	}
	calls.Reset()
	seal(t, ctx, s2.sealer, survey, threeVars(1))
	wantCalls(t, "fresh container sealing again", calls, 0, 0)
}

// Many requests at once on a cold container cost one KMS call in all.
func TestConcurrentColdSealsMakeOneKMSCall(t *testing.T) {
	c := newContainer(t)
	ctx, calls := counted()
	var wg sync.WaitGroup
	toks := make([][]string, 8)
	for g := range toks {
		wg.Go(func() {
			ts, err := c.sealer.Seal(ctx, survey, []links.Payload{threeVars(g)})
			if err != nil {
				t.Errorf("Seal: %v", err)
				return
			}
			toks[g] = ts
			if p, err := c.sealer.Open(ctx, survey, ts[0]); err != nil || !samePayload(p, threeVars(g)) {
				t.Errorf("Open = %+v, %v", p, err)
			}
		})
	}
	wg.Wait()
	wantCalls(t, "8 concurrent seals on a cold container and a fresh table", calls, 1, -1)
	for _, ts := range toks[1:] {
		if len(ts) == 1 && len(toks[0]) == 1 && keyIDOf(t, ts[0]) != keyIDOf(t, toks[0][0]) {
			t.Errorf("concurrent seals used two keys: %s and %s", keyIDOf(t, ts[0]), keyIDOf(t, toks[0][0]))
		}
	}
}
