package responses

import (
	"fmt"
	"time"
	_ "time/tzdata" // Asia/Tehran, where the Lambda image has no zoneinfo
)

// tehran is the time zone Persian surveys' results are dated in.
var tehran = func() *time.Location {
	loc, err := time.LoadLocation("Asia/Tehran")
	if err != nil {
		panic(fmt.Sprintf("load Asia/Tehran from the embedded tzdata: %v", err))
	}
	return loc
}()

// jalaliDateTime is t in Tehran as the real service's results table
// writes it on Persian surveys, YYYY/MM/DD-HH:MM:SS in the Solar Hijri
// calendar: the Python SDK's jconvert parses exactly this form.
func jalaliDateTime(t time.Time) string {
	t = t.In(tehran)
	y, m, d := gregorianToJalali(t.Year(), int(t.Month()), t.Day())
	return fmt.Sprintf("%04d/%02d/%02d-%02d:%02d:%02d", y, m, d, t.Hour(), t.Minute(), t.Second())
}

// gregorianToJalali converts a Gregorian date to the Solar Hijri calendar
// by counting days in its 2820-year arithmetic cycle (33-year sub-cycles),
// which agrees with the astronomical calendar from 1178 to 1633 AP.
func gregorianToJalali(gy, gm, gd int) (jy, jm, jd int) {
	monthStarts := [12]int{0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334}
	gy2 := gy
	if gm > 2 {
		gy2 = gy + 1
	}
	days := 355666 + 365*gy + (gy2+3)/4 - (gy2+99)/100 + (gy2+399)/400 + gd + monthStarts[gm-1]
	jy = -1595 + 33*(days/12053)
	days %= 12053
	jy += 4 * (days / 1461)
	days %= 1461
	if days > 365 {
		jy += (days - 1) / 365
		days = (days - 1) % 365
	}
	if days < 186 {
		return jy, 1 + days/31, 1 + days%31
	}
	return jy, 7 + (days-186)/30, 1 + (days-186)%30
}
