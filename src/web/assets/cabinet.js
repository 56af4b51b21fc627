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

  // A copy button after each value marked data-copy (desk id, key, the secret shown once).
  var values = document.querySelectorAll('[data-copy]');
  for (var j = 0; j < values.length; j++) {
    (function (el) {
      if (!navigator.clipboard) return;
      var b = document.createElement('button');
      b.type = 'button';
      b.className = 'secondary copy';
      b.textContent = 'Copy';
      b.setAttribute('aria-label', 'Copy the ' + el.getAttribute('data-copy'));
      b.addEventListener('click', function () {
        navigator.clipboard.writeText(el.textContent.trim()).then(function () {
          b.textContent = 'Copied';
          setTimeout(function () { b.textContent = 'Copy'; }, 2000);
        });
      });
      el.insertAdjacentElement('afterend', b);
    })(values[j]);
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
})();
