# The work of the python3 whose stacks bench/run.sh records: a few
# modules (json, re, collections) and the interpreter's own loops.
import json, re, collections
def work(n):
    d = collections.Counter()
    for i in range(n):
        s = json.dumps({"k%d" % j: [j, str(j) * 3, {"x": j}] for j in range(30)})
        o = json.loads(s)
        d.update(re.findall(r"k\d+", s))
        sorted(o.items(), key=lambda kv: kv[0])
    return d
for _ in range(1000):
    work(200)
