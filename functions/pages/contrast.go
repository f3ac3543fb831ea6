package pages

import (
	"fmt"
	"math"
	"strconv"
)

// rgb is a color in sRGB, 0-255 a channel.
type rgb struct{ r, g, b float64 }

var (
	white = rgb{255, 255, 255}
	black = rgb{0, 0, 0}
)

// parseHex reads #rgb, #rrggbb or #rrggbbaa (the alpha is dropped: a color
// is drawn opaque on the page) as hexColor admits them.
func parseHex(s string) (rgb, bool) {
	if !hexColor.MatchString(s) {
		return rgb{}, false
	}
	h := s[1:]
	if len(h) == 3 {
		h = string([]byte{h[0], h[0], h[1], h[1], h[2], h[2]})
	}
	v, err := strconv.ParseUint(h[:6], 16, 32)
	if err != nil {
		return rgb{}, false
	}
	return rgb{float64(v >> 16 & 0xff), float64(v >> 8 & 0xff), float64(v & 0xff)}, true
}

func (c rgb) hex() string {
	return fmt.Sprintf("#%02x%02x%02x", int(math.Round(c.r)), int(math.Round(c.g)), int(math.Round(c.b)))
}

// luminance is WCAG's relative luminance.
func (c rgb) luminance() float64 {
	ch := func(v float64) float64 {
		v /= 255
		if v <= 0.04045 {
			return v / 12.92
		}
		return math.Pow((v+0.055)/1.055, 2.4)
	}
	return 0.2126*ch(c.r) + 0.7152*ch(c.g) + 0.0722*ch(c.b)
}

// contrast is WCAG's contrast ratio of two colors, 1 to 21.
func contrast(a, b rgb) float64 {
	la, lb := a.luminance(), b.luminance()
	if la < lb {
		la, lb = lb, la
	}
	return (la + 0.05) / (lb + 0.05)
}

func mix(c, to rgb, t float64) rgb {
	return rgb{c.r + (to.r-c.r)*t, c.g + (to.g-c.g)*t, c.b + (to.b-c.b)*t}
}

// readable is c, or c moved the least toward black or white, so that its
// contrast with every color of against is at least ratio.
//
// An owner picks a theme's colors freely; the page must still be readable
// (WCAG 2.2 AA: 4.5:1 for text, 3:1 for controls and graphics). Each color
// is kept when it meets its contrast, else moved toward black or white,
// the least that meets it, so the theme's hue stays: the default theme's
// #1E88E5 buttons (3.67:1 under white text) are drawn #1b79cc (4.5:1).
func readable(c rgb, ratio float64, against ...rgb) rgb {
	worst := func(x rgb) float64 {
		m := math.Inf(1)
		for _, a := range against {
			m = min(m, contrast(x, a))
		}
		return m
	}
	// Rounded to whole channels as the page writes it, so that what is
	// drawn meets the ratio, not only what was computed.
	round := func(x rgb) rgb { return rgb{math.Round(x.r), math.Round(x.g), math.Round(x.b)} }
	if worst(round(c)) >= ratio {
		return round(c)
	}
	for step := 1; step <= 100; step++ {
		t := float64(step) / 100
		for _, to := range []rgb{black, white} {
			if x := round(mix(c, to, t)); worst(x) >= ratio {
				return x
			}
		}
	}
	if worst(black) >= worst(white) {
		return black
	}
	return white
}
