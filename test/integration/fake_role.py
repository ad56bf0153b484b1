#!/usr/bin/python3
# A stand-in for `distgnn --role ...` used by the launcher tests: it accepts the
# launcher's command line, records its pid, and behaves as fake_roles.json
# (next to the config) says: servers listen on their derived port, trainers
# sleep then exit with a code (recording when in exits_dir), samplers run until
# SIGINT or SIGTERM.
import json, os, signal, socket, subprocess, sys, time

args = sys.argv[1:]
def opt(name):
    return args[args.index(name) + 1]

role, machine, index, job_id = opt('--role'), int(opt('--machine')), int(opt('--index')), opt('--job-id')
conf_path = os.path.join(os.path.dirname(os.path.abspath(opt('--config'))), 'fake_roles.json')
conf = json.load(open(conf_path))
key = '%s-%d-%d' % (role, machine, index)
b = dict(conf.get(role, {}))
b.update(conf.get(key, {}))
with open(os.path.join(conf['pids_dir'], key), 'w') as f:
    f.write(str(os.getpid()))
sets = [args[i + 1] for i, a in enumerate(args) if a == '--set']
print('fake %s job=%s token=%s sets=%s cwd=%s' % (key, job_id, os.environ.get('DISTGNN_TOKEN', ''),
      ','.join(sets), os.getcwd()), flush=True)

def on_stop(sig, _):
    print('fake %s got %s' % (key, signal.Signals(sig).name), flush=True)
    sys.exit(0)
for sig in (signal.SIGTERM, signal.SIGINT):  # ignore_term: a role that will not stop
    signal.signal(sig, signal.SIG_IGN if b.get('ignore_term') else on_stop)

if b.get('grandchild'):  # a helper in the same process group that must die too
    c = subprocess.Popen(['sleep', '300'])
    with open(os.path.join(conf['pids_dir'], key + '-child'), 'w') as f:
        f.write(str(c.pid))

if role == 'server' and not b.get('no_listen'):
    port = conf['server_port'] + machine * conf['servers'] + index
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(('127.0.0.1', port))
    s.listen(16)
    print('fake %s listening on %d' % (key, port), flush=True)
    while True:
        c, _ = s.accept()
        c.close()

for line in b.get('say', []):  # log lines the console filter is tested with
    print(line, flush=True)

time.sleep(b.get('sleep', 3600))
print('fake %s exits with %d' % (key, b.get('exit', 0)), flush=True)
with open(os.path.join(conf['exits_dir'], key), 'w') as f:  # when, in wall-clock seconds
    f.write(repr(time.time()))
sys.exit(b.get('exit', 0))
