#!/bin/sh
# GPU checks of the stream (run on the GPU machine from the repository root; $1: the commit to print;
# $OUT: where the runs go): tests/gpu/run.sh, --devices all and a bad --devices, the time to
# the first timed variant with an empty cache, and guided/random searches of the transpose.
export TUNER_YAML_PREFIX=$PWD/.gpu/yaml TUNER_JANSSON_PREFIX=$PWD/.gpu/jansson TUNER_COMMIT=$1
export PATH=$PATH:/usr/local/cuda/bin
timeout 330 sh tests/gpu/run.sh $OUT/run > $OUT/run.txt 2>&1; echo "run.sh exit $?" >> $OUT/run.txt
grep -E '^(==|best|wall|tuner: timed|FAIL|ok|run.sh)' $OUT/run.txt | head -60
echo "== --devices all (transpose)"
out/bin/tuner --devices all --fresh --out $OUT/dev configs/transpose.yaml 2>&1 | grep -E '^tuner: (timed|verifying)|^best'
python3 -c "
import json,glob,collections
d=json.load(open(glob.glob('$OUT/dev/transpose/*/results.json')[0]))
print('devices used', collections.Counter(v.get('device') for v in d['variants'] if v['status']=='ok'))"
echo "== --devices 7"
out/bin/tuner --devices 7 --out $OUT/dev7 configs/transpose.yaml; echo "exit $?"; ls $OUT/dev7 2>&1 | head -2
echo "== cold cache, filter21: time to first timed"
TUNER_CACHE=$OUT/cold out/bin/tuner --fresh --out $OUT/cold-out configs/filter21.yaml 2>&1 | grep -E '^tuner: (timed|[0-9]+ variants in)|^best'
echo "== guided / random, transpose, budget 10 %"
for s in 1 2 3; do for st in guided random; do
out/bin/tuner -q --strategy $st --budget 60 --seed $s --out $OUT/$st$s configs/transpose.yaml | tail -1; done; done
