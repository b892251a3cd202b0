s/"wall_s": [0-9.e+-]*/"wall_s": X/g
s/"first_timed_s": [0-9.e+-]*/"first_timed_s": X/g
s/"date": "[^"]*"/"date": X/g
s/ in [0-9.]* s/ in X s/g
s/the first [0-9.]* s after/the first X s after/g
s/"run_s": [0-9.e+-]*/"run_s": X/g
s/"start_s": [0-9.e+-]*/"start_s": X/g
s/"s": [0-9.e+-]*/"s": X/g
s/"launch_us": [0-9.e+-]*/"launch_us": X/g
s/"host_us": [0-9.e+-]*/"host_us": X/g
s/"ratio": [0-9.e+-]*/"ratio": X/g
s/the host launches it in [0-9.]* us/the host launches it in X us/g
