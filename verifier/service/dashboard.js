// dashboard.js - the fleet dashboard's script (see dashboard.html): reads
// GET /v1/fleet (same origin, the admin client certificate of this TLS
// connection) every `refresh` seconds (?refresh=N, 1-3600, default 5)
// and renders it. Every string from the verifier, and so from agents,
// goes into the page as text (textContent, createTextNode), never as
// markup; classes are only ever taken from the fixed lists below.
'use strict';

(function () {
	const STATES = ['untrusted', 'stale', 'enrolling', 'registered', 'trusted'];
	const SUMMARY = ['trusted', 'untrusted', 'stale', 'registered', 'enrolling', 'total'];
	const MODES = ['enforce', 'permissive', 'off'];
	const REFRESH_DEFAULT = 5;

	const $ = (id) => document.getElementById(id);
	let refresh = REFRESH_DEFAULT;
	let refreshNote = '';
	let last = null; // {data, at}: the newest good answer
	let failed = null; // {message, at}: the newest failure, if after it
	let stateFilter = '';

	function el(tag, cls, text) {
		const e = document.createElement(tag);
		if (cls)
			e.className = cls;
		if (text !== undefined && text !== null)
			e.textContent = String(text);
		return e;
	}

	function known(list, v, dflt) {
		return list.indexOf(v) >= 0 ? v : dflt;
	}

	function pad(n) {
		return (n < 10 ? '0' : '') + n;
	}

	// unix seconds -> "2026-12-03 23:35:10Z"
	function utc(s) {
		const d = new Date(s * 1000);
		return d.getUTCFullYear() + '-' + pad(d.getUTCMonth() + 1) + '-' +
			pad(d.getUTCDate()) + ' ' + pad(d.getUTCHours()) + ':' +
			pad(d.getUTCMinutes()) + ':' + pad(d.getUTCSeconds()) + 'Z';
	}

	function clock(d) {
		return pad(d.getHours()) + ':' + pad(d.getMinutes()) + ':' + pad(d.getSeconds());
	}

	function age(sec) {
		if (!(sec >= 0))
			return 'in the future';
		if (sec < 120)
			return Math.round(sec) + ' s ago';
		if (sec < 7200)
			return Math.round(sec / 60) + ' min ago';
		if (sec < 172800)
			return Math.round(sec / 3600) + ' h ago';
		return Math.round(sec / 86400) + ' d ago';
	}

	function num(v) {
		return typeof v === 'number' && Number.isFinite(v) ? v : null;
	}

	function parseRefresh() {
		const q = new URLSearchParams(location.search).get('refresh');
		if (q === null)
			return;
		const n = Number(q);
		if (/^[0-9]+$/.test(q) && n >= 1 && n <= 3600) {
			refresh = n;
			return;
		}
		refreshNote = ' (refresh=' + q.slice(0, 20) + ' ignored: 1-3600 s)';
	}

	function setStatus(kind, text) {
		const s = $('status');
		s.className = 'status status-' + kind;
		s.textContent = text;
	}

	function summary(counts) {
		const box = $('summary');
		box.replaceChildren();
		for (const k of SUMMARY) {
			const n = num(counts ? counts[k] : null);
			const c = el('div', 'count count-' + k + (n ? '' : ' zero') +
				(stateFilter === k ? ' selected' : ''));
			c.dataset.state = k;
			c.title = k === 'total' ? 'show every agent' : 'show only ' + k;
			c.appendChild(el('span', 'n', n === null ? '?' : n));
			c.appendChild(el('span', 'label', k));
			c.addEventListener('click', () => {
				stateFilter = k === 'total' || stateFilter === k ? '' : k;
				render();
			});
			box.appendChild(c);
		}
	}

	function reasonsCell(a) {
		const td = el('td', 'reasons-cell');
		const list = Array.isArray(a.failure_reasons) ? a.failure_reasons : [];
		if (!list.length) {
			td.appendChild(el('span', 'muted', '\u2014'));
			return td;
		}
		const ul = el('ul', 'reasons');
		for (const r of list)
			ul.appendChild(el('li', 'reason', r));
		td.appendChild(ul);
		return td;
	}

	function latticeCell(l) {
		const td = el('td', 'lattice');
		if (!l || typeof l !== 'object') {
			td.appendChild(el('span', 'muted', 'no slim.ko state'));
			return td;
		}
		const mode = el('div', 'lattice-mode');
		if (l.mode === null || l.mode === undefined) {
			mode.appendChild(el('span', 'flag', l.loaded ? 'mode unknown' : 'not loaded'));
		} else {
			mode.appendChild(document.createTextNode('mode '));
			mode.appendChild(el('span', 'mode mode-' + known(MODES, l.mode, 'unknown'), l.mode));
		}
		if (l.version)
			mode.appendChild(document.createTextNode(' v' + l.version));
		if (l.reloaded) {
			mode.appendChild(document.createTextNode(' '));
			mode.appendChild(el('span', 'flag', 'reloaded'));
		}
		td.appendChild(mode);
		const pol = el('div', 'lattice-policy mono');
		if (typeof l.policy_digest === 'string') {
			pol.textContent = 'policy ' + l.policy_digest.slice(0, 12);
			pol.title = l.policy_digest;
		} else {
			pol.textContent = 'policy \u2014';
		}
		td.appendChild(pol);
		td.appendChild(el('div', 'lattice-evm', 'EVM key ' + (l.evm_key ? 'yes' : 'no')));
		let d = 'demotions ' + (num(l.demotions) ?? '?');
		if (num(l.relabels))
			d += ', relabels ' + l.relabels;
		td.appendChild(el('div', 'lattice-demotions', d));
		if (num(l.dropped_events) || l.events_capped)
			td.appendChild(el('div', 'flag lattice-dropped', 'dropped events ' +
				(num(l.dropped_events) ?? 0) + (l.events_capped ? ', capped' : '')));
		const rd = Array.isArray(l.recent_demotions) ? l.recent_demotions : [];
		if (rd.length) {
			const n = rd[0] || {};
			let t = 'newest: ' + n.comm + ' (pid ' + n.pid + ') ' + n.exe + ': ' +
				n.from + ' \u2192 ' + n.to + ', ' + n.cause;
			if (n.path)
				t += ' ' + n.path;
			if (num(n.time) !== null)
				t += ' at ' + utc(n.time);
			td.appendChild(el('div', 'demotion', t));
		}
		return td;
	}

	function row(a, now) {
		const state = String(a.state);
		const cls = known(STATES, state, 'unknown');
		const tr = el('tr', 'row state-' + cls);
		tr.dataset.agent = String(a.id);
		tr.appendChild(el('td', 'id', a.id));
		const st = el('td');
		st.appendChild(el('span', 'state state-' + cls, state));
		tr.appendChild(st);
		const la = num(a.last_attestation);
		const lt = el('td', 'last');
		if (la === null) {
			lt.appendChild(el('span', 'muted', 'never'));
		} else {
			lt.appendChild(el('div', 'mono', utc(la)));
			lt.appendChild(el('div', 'muted age', age(now - la)));
		}
		tr.appendChild(lt);
		tr.appendChild(reasonsCell(a));
		tr.appendChild(latticeCell(a.lattice));
		const w = a.whitelist;
		tr.appendChild(el('td', 'whitelist', w && typeof w === 'object' ?
			w.name + '@' + (w.version ? w.version : 'newest') : '\u2014'));
		tr.appendChild(el('td', 'boots', num(a.boot_count) ?? ''));
		return tr;
	}

	function haystack(a) {
		const l = a.lattice && typeof a.lattice === 'object' ? a.lattice : {};
		return [a.id, a.state,
			...(Array.isArray(a.failure_reasons) ? a.failure_reasons : []),
			a.whitelist && a.whitelist.name, l.mode].join('\n').toLowerCase();
	}

	function sorted(agents) {
		const by = $('sort').value;
		const rank = (a) => {
			const i = STATES.indexOf(a.state);
			return i < 0 ? -1 : i; // unknown states first
		};
		const id = (a, b) => String(a.id) < String(b.id) ? -1 : String(a.id) > String(b.id);
		return agents.slice().sort((a, b) => {
			if (by === 'state')
				return rank(a) - rank(b) || id(a, b);
			if (by === 'last')
				return (num(a.last_attestation) ?? -1) - (num(b.last_attestation) ?? -1) || id(a, b);
			return id(a, b);
		});
	}

	function render() {
		const table = $('fleet');
		const body = $('rows');
		const d = last ? last.data : null;
		summary(d ? d.counts : null);
		body.replaceChildren();
		table.classList.toggle('stale', !!failed);
		table.dataset.stale = failed ? 'true' : 'false';
		if (!d)
			return;
		const agents = Array.isArray(d.agents) ? d.agents : [];
		const q = $('filter').value.trim().toLowerCase();
		const now = num(d.generated_at) ?? Date.now() / 1000;
		let shown = 0;
		for (const a of sorted(agents)) {
			if (!a || typeof a !== 'object')
				continue;
			if (stateFilter && a.state !== stateFilter)
				continue;
			if (q && haystack(a).indexOf(q) < 0)
				continue;
			body.appendChild(row(a, now));
			shown++;
		}
		const empty = $('empty');
		empty.hidden = shown > 0;
		empty.textContent = agents.length ? 'No agent matches the filter.' : 'No agents enrolled.';
		$('footer').textContent = shown + ' of ' + agents.length + ' agents shown; ' +
			'the verifier answered at ' + utc(now) + ' (ages are counted from then).';
	}

	function report() {
		const every = 'every ' + refresh + ' s' + refreshNote;
		$('refresh-note').textContent = 'Refreshes ' + every + '.';
		if (failed && last)
			setStatus('error', 'STALE: cannot refresh (' + failed.message + ', ' +
				clock(failed.at) + '); the table shows the answer of ' +
				clock(last.at) + ', not the fleet now.');
		else if (failed)
			setStatus('error', 'Cannot load /v1/fleet: ' + failed.message + ' (' + clock(failed.at) + ').');
		else
			setStatus('ok', 'Refreshed ' + clock(last.at) + ', ' + every + '.');
	}

	async function load() {
		const r = await fetch('/v1/fleet', {
			credentials: 'same-origin',
			cache: 'no-store',
			headers: {Accept: 'application/json'},
		});
		let body = null;
		try {
			body = await r.json();
		} catch (e) {
			body = null;
		}
		if (!r.ok) {
			const m = body && typeof body.message === 'string' ? ': ' + body.message.slice(0, 200) : '';
			throw new Error('HTTP ' + r.status + m);
		}
		if (!body || typeof body !== 'object' || !Array.isArray(body.agents))
			throw new Error('not a fleet answer');
		return body;
	}

	async function tick() {
		try {
			const data = await load();
			last = {data: data, at: new Date()};
			failed = null;
		} catch (e) {
			failed = {message: String(e && e.message ? e.message : e), at: new Date()};
		}
		render();
		report();
		setTimeout(tick, refresh * 1000);
	}

	function start() {
		parseRefresh();
		$('filter').addEventListener('input', render);
		$('sort').addEventListener('change', render);
		summary(null);
		tick();
	}

	if (document.readyState === 'loading')
		document.addEventListener('DOMContentLoaded', start);
	else
		start();
})();
