"""A stand-in for jdatetime's datetime.togregorian, the only part of the
package porsline-sdk's jalali_to_gregorian.py uses: Solar Hijri to
Gregorian by counting days in the 33-year cycle (jdf.scr.ir's
jalali_to_gregorian)."""
import datetime as _dt


def _j2g(jy, jm, jd):
    jy += 1595
    days = -355668 + 365 * jy + (jy // 33) * 8 + ((jy % 33) + 3) // 4 + jd
    days += (jm - 1) * 31 if jm < 7 else (jm - 7) * 30 + 186
    gy = 400 * (days // 146097)
    days %= 146097
    if days > 36524:
        days -= 1
        gy += 100 * (days // 36524)
        days %= 36524
        if days >= 365:
            days += 1
    gy += 4 * (days // 1461)
    days %= 1461
    if days > 365:
        gy += (days - 1) // 365
        days = (days - 1) % 365
    gd = days + 1
    leap = (gy % 4 == 0 and gy % 100 != 0) or gy % 400 == 0
    month_days = [31, 29 if leap else 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
    gm = 1
    for n in month_days:
        if gd <= n:
            break
        gd -= n
        gm += 1
    return gy, gm, gd


class datetime:
    def __init__(self, year, month, day, hour=0, minute=0, second=0):
        self.year, self.month, self.day = year, month, day
        self.hour, self.minute, self.second = hour, minute, second

    def togregorian(self):
        gy, gm, gd = _j2g(self.year, self.month, self.day)
        return _dt.datetime(gy, gm, gd, self.hour, self.minute, self.second)
