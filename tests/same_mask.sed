s/"wall_s": [0-9.e+-]*/"wall_s": X/g
s/"first_timed_s": [0-9.e+-]*/"first_timed_s": X/g
s/"date": "[^"]*"/"date": X/g
s/ in [0-9.]* s/ in X s/g
s/the first [0-9.]* s after/the first X s after/g
