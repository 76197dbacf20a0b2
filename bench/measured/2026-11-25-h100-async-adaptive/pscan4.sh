export PYTHONUNBUFFERED=1
nvidia-smi -L | tee $OUT/pscan4.log
PYTHONPATH=$PWD timeout ${T:-200} python3 .dev16/pscan4.py ${GRAPHS:-porto_alegre,NY,FLA,NE} ${CELLS:-1:3:2:8192,1:3:2:16384,1.5:3:2:8192,2:4:2:8192,2:3:2:8192} 2>&1 | grep -v Warn | tee -a $OUT/pscan4.log
