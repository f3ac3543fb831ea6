package responses

import "sync"

// surveyAndPage reads the survey and a page of its responses at once:
// they do not depend on each other, so a request waits for one round trip,
// not two. A page of another account's survey is read, then dropped unseen:
// the survey's error (its 404) wins over the page's.
func surveyAndPage[S, P any](owner func() (S, error), page func() (P, error)) (S, P, error) {
	var p P
	var pageErr error
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		p, pageErr = page()
	}()
	s, err := owner()
	wg.Wait()
	if err == nil {
		err = pageErr
	}
	return s, p, err
}
