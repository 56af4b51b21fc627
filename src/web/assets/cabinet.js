// Cabinet enhancements only; every page works without this file.
(function () {
  'use strict';

  // The reader's local time beside each UTC time.
  var times = document.querySelectorAll('time[datetime]');
  for (var i = 0; i < times.length; i++) {
    var d = new Date(times[i].getAttribute('datetime'));
    if (isNaN(d.getTime())) continue;
    var local = document.createElement('span');
    local.className = 'muted';
    local.textContent = ' (' + d.toLocaleString() + ' local)';
    times[i].insertAdjacentElement('afterend', local);
  }

  // A copy button after each value marked data-copy (ids, keys, the secret shown once, links, snippets).
  function copyText(text) {
    if (navigator.clipboard && window.isSecureContext) return navigator.clipboard.writeText(text);
    // Without the clipboard API (a plain-http address): select the text and copy the selection.
    return new Promise(function (resolve, reject) {
      var area = document.createElement('textarea');
      area.value = text;
      area.setAttribute('readonly', '');
      area.className = 'skip';
      document.body.appendChild(area);
      area.select();
      var ok = false;
      try { ok = document.execCommand('copy'); } catch (e) { ok = false; }
      document.body.removeChild(area);
      if (ok) resolve(); else reject(new Error('copy refused'));
    });
  }
  var values = document.querySelectorAll('[data-copy]');
  for (var j = 0; j < values.length; j++) {
    (function (el) {
      var b = document.createElement('button');
      b.type = 'button';
      b.className = 'secondary copy';
      b.textContent = 'Copy';
      b.setAttribute('aria-label', 'Copy the ' + el.getAttribute('data-copy'));
      b.addEventListener('click', function () {
        copyText((el.innerText || el.textContent).trim()).then(function () {
          b.textContent = 'Copied';
          setTimeout(function () { b.textContent = 'Copy'; }, 2000);
        }, function () {
          b.textContent = 'Select and copy';
        });
      });
      el.insertAdjacentElement('afterend', b);
    })(values[j]);
  }

  // An amount shows its exact decimal string on a click (or Enter), and back on the next.
  var amounts = document.querySelectorAll('.money[data-exact]');
  for (var m = 0; m < amounts.length; m++) {
    (function (el) {
      var shown = el.textContent;
      el.tabIndex = 0;
      el.setAttribute('role', 'button');
      el.setAttribute('aria-pressed', 'false');
      var toggle = function () {
        var exact = el.getAttribute('aria-pressed') === 'false';
        el.textContent = exact ? el.getAttribute('data-exact') : shown;
        el.setAttribute('aria-pressed', exact ? 'true' : 'false');
      };
      el.addEventListener('click', toggle);
      el.addEventListener('keydown', function (e) {
        if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); toggle(); }
      });
    })(amounts[m]);
  }

  // The desk form shows only the rails of the chosen method.
  var method = document.querySelector('#new-desk select[name=method]');
  if (method) {
    var sets = document.querySelectorAll('#new-desk fieldset[data-method]');
    var show = function () {
      for (var k = 0; k < sets.length; k++) {
        var mine = sets[k].getAttribute('data-method') === method.value;
        sets[k].hidden = !mine;
        if (!mine) {
          var boxes = sets[k].querySelectorAll('input');
          for (var n = 0; n < boxes.length; n++) boxes[n].checked = false;
        }
      }
    };
    method.addEventListener('change', show);
    show();
  }

  // The payout destination form shows only the fields of the chosen kind; the others are emptied.
  var kinds = document.querySelectorAll('#new-destination input[name=kind]');
  if (kinds.length) {
    var groups = document.querySelectorAll('#new-destination fieldset[data-kinds]');
    var showKind = function () {
      var chosen = document.querySelector('#new-destination input[name=kind]:checked');
      for (var g = 0; g < groups.length; g++) {
        var mine = !!chosen && groups[g].getAttribute('data-kinds').split(' ').indexOf(chosen.value) >= 0;
        groups[g].hidden = !mine;
        if (!mine) {
          var fields = groups[g].querySelectorAll('input');
          for (var f = 0; f < fields.length; f++) fields[f].value = '';
        }
      }
    };
    for (var r = 0; r < kinds.length; r++) kinds[r].addEventListener('change', showKind);
    showKind();
  }
})();
